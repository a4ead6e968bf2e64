//! What `divlab profile` puts in a kernel's buffers: the command-line forms (`--buffer
//! BINDING=FILL`, `--len BINDING=N`, `--override NAME=VALUE`, `--dispatch X[,Y[,Z]]`), their
//! resolution against the kernel's [`KernelInterface`], and the bytes of each buffer. Pure; no
//! device.
//!
//! The parsers return `Result<T, String>` (clap `value_parser`s); their messages quote the bad
//! input and show the expected form.

use std::fmt;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::str::FromStr;

use naga::{Scalar, ScalarKind};

use super::kernel::{Binding, KernelInterface};
use crate::{Error, Result};

/// The seed of `random` without one.
pub const DEFAULT_SEED: u64 = 0x5eed;

/// What a buffer holds before the kernel runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Fill {
    /// All bytes zero.
    Zeros,
    /// Scalar `k` (in layout order) holds `k`, in its own type.
    Iota,
    /// Seeded random scalars: floats in [0, 1), integers uniform over their type. The seed is
    /// mixed with the binding's `@group`/`@binding`, so two buffers with one seed differ.
    Random(u64),
    /// The leading scalars in layout order; the rest zero.
    Values(Vec<f64>),
    /// Raw little-endian bytes of a file; a shorter file is zero-padded.
    File(PathBuf),
}

impl Default for Fill {
    fn default() -> Self {
        Self::Random(DEFAULT_SEED)
    }
}

const FILL_FORMS: &str = "zeros, iota, random, random:SEED, values:V1,V2,... or file:PATH";

impl FromStr for Fill {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = |why: String| format!("`{s}` is not a fill: {why}; use {FILL_FORMS}");
        let (kind, arg) = match s.split_once(':') {
            Some((k, a)) => (k, Some(a)),
            None => (s, None),
        };
        match (kind, arg) {
            ("zeros", None) => Ok(Self::Zeros),
            ("iota", None) => Ok(Self::Iota),
            ("random", None) => Ok(Self::Random(DEFAULT_SEED)),
            ("random", Some(seed)) => parse_u64(seed)
                .map(Self::Random)
                .ok_or_else(|| bad(format!("seed `{seed}` is not an unsigned integer"))),
            ("values", Some(list)) => {
                if list.trim().is_empty() {
                    return Err(bad("`values:` needs at least one value".to_owned()));
                }
                list.split(',')
                    .map(|v| {
                        parse_number(v.trim())
                            .ok_or_else(|| bad(format!("`{v}` is not a finite number")))
                    })
                    .collect::<Result<_, _>>()
                    .map(Self::Values)
            }
            ("file", Some(path)) if !path.is_empty() => Ok(Self::File(PathBuf::from(path))),
            ("file", Some(_)) => Err(bad("`file:` needs a path".to_owned())),
            ("zeros" | "iota", Some(_)) => Err(bad(format!("`{kind}` takes no argument"))),
            ("values" | "file", None) => Err(bad(format!("`{kind}` needs `{kind}:...`"))),
            _ => Err(bad(format!("unknown fill `{kind}`"))),
        }
    }
}

impl fmt::Display for Fill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Zeros => f.write_str("zeros"),
            Self::Iota => f.write_str("iota"),
            Self::Random(seed) => write!(f, "random:{seed}"),
            Self::Values(vs) => {
                let vs: Vec<String> = vs.iter().map(f64::to_string).collect();
                write!(f, "values:{}", vs.join(","))
            }
            Self::File(path) => write!(f, "file:{}", path.display()),
        }
    }
}

/// A binding named on the command line.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BindingRef {
    /// By the variable's name.
    Name(String),
    /// By `GROUP:BINDING`.
    Slot {
        /// `@group`.
        group: u32,
        /// `@binding`.
        binding: u32,
    },
}

impl BindingRef {
    /// Whether `b` is the binding this names.
    pub fn matches(&self, b: &Binding) -> bool {
        match self {
            Self::Name(name) => *name == b.name,
            Self::Slot { group, binding } => *group == b.group && *binding == b.binding,
        }
    }
}

impl FromStr for BindingRef {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if let Some((g, b)) = s.split_once(':') {
            return match (g.trim().parse(), b.trim().parse()) {
                (Ok(group), Ok(binding)) => Ok(Self::Slot { group, binding }),
                _ => Err(format!(
                    "`{s}` is not a binding: GROUP:BINDING takes two unsigned integers (`0:1`)"
                )),
            };
        }
        let mut chars = s.chars();
        let ident = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
            && chars.all(|c| c.is_alphanumeric() || c == '_');
        if ident {
            Ok(Self::Name(s.to_owned()))
        } else {
            Err(format!(
                "`{s}` is not a binding: use the variable's name (`data`) or GROUP:BINDING (`0:1`)"
            ))
        }
    }
}

impl fmt::Display for BindingRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name(name) => f.write_str(name),
            Self::Slot { group, binding } => write!(f, "{group}:{binding}"),
        }
    }
}

/// `--buffer BINDING=FILL`.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    /// Which binding.
    pub target: BindingRef,
    /// What it holds.
    pub fill: Fill,
}

impl FromStr for BufferSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let Some((target, fill)) = s.split_once('=') else {
            return Err(format!(
                "`{s}` is not BINDING=FILL (e.g. `data=iota`, `0:1=values:1,2,3`), where FILL is \
                 {FILL_FORMS}"
            ));
        };
        Ok(Self {
            target: target.parse()?,
            fill: fill.parse()?,
        })
    }
}

/// Parses `--len BINDING=N` (N ≥ 1): the element count of a runtime-sized array.
pub fn parse_len(s: &str) -> Result<(BindingRef, u64), String> {
    let form = "BINDING=N with N ≥ 1 elements (e.g. `data=4096`)";
    let Some((target, n)) = s.split_once('=') else {
        return Err(format!("`{s}` is not {form}"));
    };
    let target = target.parse()?;
    match parse_u64(n) {
        Some(n) if n >= 1 => Ok((target, n)),
        _ => Err(format!("`{s}`: `{n}` is not a length; use {form}")),
    }
}

/// Parses `--override NAME=VALUE`: a number, or `true`/`false` (1/0).
pub fn parse_override(s: &str) -> Result<(String, f64), String> {
    let form = "NAME=VALUE, where VALUE is a number or true/false (e.g. `BLOCK=64`)";
    let Some((name, value)) = s.split_once('=') else {
        return Err(format!("`{s}` is not {form}"));
    };
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!(
            "`{s}`: `{name}` is not a constant's name; use {form}"
        ));
    }
    let parsed = match value.trim() {
        "true" => Some(1.0),
        "false" => Some(0.0),
        v => parse_number(v),
    };
    match parsed {
        Some(v) => Ok((name.to_owned(), v)),
        None => Err(format!("`{s}`: `{value}` is not a number; use {form}")),
    }
}

/// Parses `--dispatch X[,Y[,Z]]`: workgroup counts, each ≥ 1, missing ones 1.
pub fn parse_dispatch(s: &str) -> Result<[u32; 3], String> {
    let bad = || {
        format!(
            "`{s}` is not a dispatch: use X, X,Y or X,Y,Z workgroups, each ≥ 1 (e.g. `64` or `8,8`)"
        )
    };
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() > 3 {
        return Err(bad());
    }
    let mut out = [1; 3];
    for (slot, part) in out.iter_mut().zip(&parts) {
        *slot = match part.trim().parse::<u32>() {
            Ok(n) if n >= 1 => n,
            _ => return Err(bad()),
        };
    }
    Ok(out)
}

/// Invocations of a dispatch: the default length of a runtime-sized array, one element per
/// invocation.
pub fn invocations(workgroup_size: [u32; 3], dispatch: [u32; 3]) -> u64 {
    workgroup_size
        .iter()
        .chain(&dispatch)
        .map(|&n| u64::from(n))
        .product()
}

/// One binding's resolved settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// Index into [`KernelInterface::bindings`].
    pub index: usize,
    /// Its fill ([`Fill::default`] where none was given).
    pub fill: Fill,
    /// Its runtime-sized array's length, where `--len` gave one (the host picks a default).
    pub len: Option<u64>,
}

/// Each binding of `interface`, in its order, with the `--buffer` and `--len` that name it.
/// A `--buffer`/`--len` that names no binding, names one twice, or a `--len` on a fixed-size
/// binding is an error.
pub fn resolve(
    interface: &KernelInterface,
    specs: &[BufferSpec],
    lens: &[(BindingRef, u64)],
) -> Result<Vec<Resolved>> {
    let mut out: Vec<Resolved> = (0..interface.bindings.len())
        .map(|index| Resolved {
            index,
            fill: Fill::default(),
            len: None,
        })
        .collect();
    let mut filled = vec![false; out.len()];
    for spec in specs {
        let i = find(interface, &spec.target, "--buffer")?;
        if std::mem::replace(&mut filled[i], true) {
            return Err(Error::InvalidSettings(format!(
                "--buffer gives {} twice; give each binding once",
                interface.bindings[i].label()
            )));
        }
        out[i].fill = spec.fill.clone();
    }
    for (target, len) in lens {
        let i = find(interface, target, "--len")?;
        let b = &interface.bindings[i];
        if let super::kernel::BufferSize::Fixed(bytes) = b.size {
            return Err(Error::InvalidSettings(format!(
                "--len {target}={len}: {} has a fixed size of {bytes} bytes; --len applies only \
                 to runtime-sized arrays (`array<T>`)",
                b.label()
            )));
        }
        if out[i].len.replace(*len).is_some() {
            return Err(Error::InvalidSettings(format!(
                "--len gives {} twice; give each binding once",
                b.label()
            )));
        }
    }
    Ok(out)
}

fn find(interface: &KernelInterface, target: &BindingRef, flag: &str) -> Result<usize> {
    interface
        .bindings
        .iter()
        .position(|b| target.matches(b))
        .ok_or_else(|| {
            let list: Vec<String> = interface
                .bindings
                .iter()
                .map(|b| format!("{} at {}:{} ({})", b.name, b.group, b.binding, b.access))
                .collect();
            let list = if list.is_empty() {
                "it uses none".to_owned()
            } else {
                format!("its bindings are {}", list.join(", "))
            };
            Error::InvalidSettings(format!(
                "{flag} {target}=...: entry point `{}` uses no binding `{target}`; {list}",
                interface.entry
            ))
        })
}

/// The `bytes` bytes of `binding`'s buffer filled with `fill` (a runtime-sized array holds as
/// many elements as fit). See [`Fill`] for each form.
pub fn contents(binding: &Binding, bytes: u64, fill: &Fill) -> Result<Vec<u8>> {
    let size = usize::try_from(bytes).map_err(|_| {
        Error::InvalidSettings(format!("{} would take {bytes} bytes", binding.label()))
    })?;
    let mut buf = vec![0u8; size];
    let len = binding.size.len_for(bytes);
    let mut each = |f: &mut ScalarWriter<'_>| {
        let mut visit = |offset: u64, scalar: Scalar| {
            if offset + u64::from(scalar.width) > bytes {
                return ControlFlow::Continue(());
            }
            f(&mut buf, offset, scalar)
        };
        binding.shape.for_each_scalar(0, len, &mut visit)
    };
    match fill {
        Fill::Zeros => {}
        Fill::Iota => {
            let mut k = 0u64;
            let _ = each(&mut |buf, offset, scalar| {
                let bits = match scalar.kind {
                    ScalarKind::Float => float_bits(k as f64, scalar.width),
                    _ => k,
                };
                put(buf, offset, scalar.width, bits);
                k += 1;
                ControlFlow::Continue(())
            });
        }
        Fill::Random(seed) => {
            let slot = u64::from(binding.group) << 32 | u64::from(binding.binding);
            let mut rng = fastrand::Rng::with_seed(seed ^ slot.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let _ = each(&mut |buf, offset, scalar| {
                let bits = match (scalar.kind, scalar.width) {
                    (ScalarKind::Float, 2) => float_bits(f64::from(rng.u32(0..2048)) / 2048.0, 2),
                    (ScalarKind::Float, 4) => u64::from(rng.f32().to_bits()),
                    (ScalarKind::Float, _) => rng.f64().to_bits(),
                    _ => rng.u64(..),
                };
                put(buf, offset, scalar.width, bits);
                ControlFlow::Continue(())
            });
        }
        Fill::Values(values) => {
            let mut next = values.iter().enumerate();
            let mut failure = None;
            let _ = each(&mut |buf, offset, scalar| {
                let Some((i, &v)) = next.next() else {
                    return ControlFlow::Break(());
                };
                match value_bits(v, scalar) {
                    Some(bits) => {
                        put(buf, offset, scalar.width, bits);
                        ControlFlow::Continue(())
                    }
                    None => {
                        failure = Some(format!(
                            "values: value {} ({v}) does not fit the {} at byte {offset} of {}",
                            i + 1,
                            super::kernel::scalar_name(scalar),
                            binding.label()
                        ));
                        ControlFlow::Break(())
                    }
                }
            });
            if let Some(message) = failure {
                return Err(Error::InvalidSettings(message));
            }
            let left = next.count();
            if left > 0 {
                let holds = binding.shape.scalar_count(len);
                let hint = if binding.size.is_runtime() {
                    "; give fewer values or a larger --len"
                } else {
                    "; give fewer values"
                };
                return Err(Error::InvalidSettings(format!(
                    "values: gives {} values but {} holds {holds} scalars ({bytes} bytes){hint}",
                    values.len(),
                    binding.label()
                )));
            }
        }
        Fill::File(path) => {
            let data = std::fs::read(path).map_err(|e| {
                Error::InvalidSettings(format!(
                    "cannot read file:{} for {}: {e}",
                    path.display(),
                    binding.label()
                ))
            })?;
            if data.len() > size {
                let hint = match binding.size {
                    super::kernel::BufferSize::RuntimeArray { base, stride, .. } => {
                        let n = (data.len() as u64)
                            .saturating_sub(base)
                            .div_ceil(stride.max(1));
                        format!("; pass --len {}={n} to fit it", binding.name)
                    }
                    super::kernel::BufferSize::Fixed(_) => String::new(),
                };
                return Err(Error::InvalidSettings(format!(
                    "file:{} has {} bytes but {} takes {bytes} bytes{hint}",
                    path.display(),
                    data.len(),
                    binding.label()
                )));
            }
            buf[..data.len()].copy_from_slice(&data);
        }
    }
    Ok(buf)
}

/// Writes one scalar into a buffer: `(buffer, byte offset, scalar type)`.
type ScalarWriter<'a> = dyn FnMut(&mut [u8], u64, Scalar) -> ControlFlow<()> + 'a;

/// Writes the low `width` bytes of `bits` little-endian at `offset`.
fn put(buf: &mut [u8], offset: u64, width: u8, bits: u64) {
    let at = offset as usize;
    let width = usize::from(width);
    buf[at..at + width].copy_from_slice(&bits.to_le_bytes()[..width]);
}

/// `v` as a float of `width` bytes.
fn float_bits(v: f64, width: u8) -> u64 {
    match width {
        2 => u64::from(f16_bits(v as f32)),
        4 => u64::from((v as f32).to_bits()),
        _ => v.to_bits(),
    }
}

/// `v` as `scalar`'s bits, or `None` where it does not fit (a fraction or out of range for an
/// integer).
fn value_bits(v: f64, scalar: Scalar) -> Option<u64> {
    let bits = u32::from(scalar.width) * 8;
    match scalar.kind {
        ScalarKind::Float => Some(float_bits(v, scalar.width)),
        ScalarKind::Uint => {
            let max = 2f64.powi(bits as i32);
            (v.fract() == 0.0 && (0.0..max).contains(&v)).then_some(v as u64)
        }
        ScalarKind::Sint => {
            let half = 2f64.powi(bits as i32 - 1);
            (v.fract() == 0.0 && (-half..half).contains(&v)).then(|| {
                let mask = if bits == 64 {
                    u64::MAX
                } else {
                    (1 << bits) - 1
                };
                (v as i64 as u64) & mask
            })
        }
        ScalarKind::Bool | ScalarKind::AbstractInt | ScalarKind::AbstractFloat => None,
    }
}

/// IEEE binary16 bits of `x`, rounded to nearest even.
fn f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    let (m, shift) = if e <= 0 {
        // Subnormal: the implicit bit joins the mantissa, shifted further right.
        if e < -10 {
            return sign;
        }
        (man | 0x80_0000, (14 - e) as u32)
    } else {
        (man, 13)
    };
    let half = 1u32 << (shift - 1);
    let rest = m & ((1 << shift) - 1);
    let mut h = m >> shift;
    if rest > half || (rest == half && h & 1 == 1) {
        h += 1;
    }
    // A carry out of the mantissa rounds into the exponent, as it should.
    let high = if e <= 0 { 0 } else { (e as u32) << 10 };
    sign | (high + h) as u16
}

fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// A finite number: decimal, float, or `0x` hex.
fn parse_number(s: &str) -> Option<f64> {
    if let Some(n) = parse_u64(s).filter(|_| s.starts_with("0x") || s.starts_with("0X")) {
        return Some(n as f64);
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::super::kernel::{BufferSize, interface};
    use super::*;
    use crate::shaders::check_wgsl;

    fn kernel(src: &str) -> KernelInterface {
        let module = check_wgsl("k.wgsl", src).unwrap();
        interface(&module, src, "k.wgsl", None).unwrap()
    }

    fn settings_error<T: fmt::Debug>(r: Result<T>) -> String {
        match r {
            Err(Error::InvalidSettings(m)) => m,
            other => panic!("expected InvalidSettings, got {other:?}"),
        }
    }

    #[test]
    fn fill_parses_every_form() {
        let cases = [
            ("zeros", Fill::Zeros),
            ("iota", Fill::Iota),
            ("random", Fill::Random(DEFAULT_SEED)),
            ("random:42", Fill::Random(42)),
            ("random:0x10", Fill::Random(16)),
            ("values:1,2.5,-3", Fill::Values(vec![1.0, 2.5, -3.0])),
            ("values: 7 , 0x10", Fill::Values(vec![7.0, 16.0])),
            ("file:data/in.bin", Fill::File("data/in.bin".into())),
        ];
        for (text, fill) in cases {
            assert_eq!(text.parse::<Fill>(), Ok(fill.clone()), "{text}");
            // Display writes a form that parses back.
            assert_eq!(fill.to_string().parse::<Fill>(), Ok(fill), "{text}");
        }
        assert_eq!(Fill::default(), Fill::Random(DEFAULT_SEED));
    }

    #[test]
    fn malformed_fills_quote_the_input() {
        for (text, why) in [
            ("values:1,x", "`x` is not a finite number"),
            ("values:", "at least one value"),
            ("values:1,inf", "`inf` is not a finite number"),
            ("random:abc", "seed `abc`"),
            ("random:-1", "seed `-1`"),
            ("file:", "needs a path"),
            ("nope", "unknown fill `nope`"),
            ("zeros:3", "takes no argument"),
            ("values", "needs `values:...`"),
        ] {
            let m = text.parse::<Fill>().unwrap_err();
            assert!(m.starts_with(&format!("`{text}` is not a fill")), "{m}");
            assert!(m.contains(why), "{text}: {m}");
            assert!(m.contains("values:V1,V2,..."), "{m}");
        }
    }

    #[test]
    fn buffer_spec_and_binding_ref_parse() {
        let spec: BufferSpec = "data=iota".parse().unwrap();
        assert_eq!(spec.target, BindingRef::Name("data".into()));
        assert_eq!(spec.fill, Fill::Iota);
        let spec: BufferSpec = "1:2=file:a=b.bin".parse().unwrap();
        assert_eq!(
            spec.target,
            BindingRef::Slot {
                group: 1,
                binding: 2
            }
        );
        assert_eq!(spec.fill, Fill::File("a=b.bin".into()));

        let m = "data".parse::<BufferSpec>().unwrap_err();
        assert!(m.contains("`data` is not BINDING=FILL"), "{m}");
        let m = "data=nope".parse::<BufferSpec>().unwrap_err();
        assert!(m.contains("`nope` is not a fill"), "{m}");
        let m = "1x=zeros".parse::<BufferSpec>().unwrap_err();
        assert!(m.contains("`1x` is not a binding"), "{m}");
        let m = "0:y=zeros".parse::<BufferSpec>().unwrap_err();
        assert!(m.contains("`0:y` is not a binding"), "{m}");
        assert!(m.contains("GROUP:BINDING"), "{m}");
    }

    #[test]
    fn len_override_dispatch_parse() {
        assert_eq!(
            parse_len("data=4096"),
            Ok((BindingRef::Name("data".into()), 4096))
        );
        assert_eq!(
            parse_len("0:3=8"),
            Ok((
                BindingRef::Slot {
                    group: 0,
                    binding: 3
                },
                8
            ))
        );
        for bad in ["data", "data=0", "data=-1", "data=x"] {
            let m = parse_len(bad).unwrap_err();
            assert!(m.contains(&format!("`{bad}`")), "{m}");
            assert!(m.contains("BINDING=N"), "{m}");
        }

        assert_eq!(parse_override("BLOCK=64"), Ok(("BLOCK".into(), 64.0)));
        assert_eq!(parse_override("scale=-0.5"), Ok(("scale".into(), -0.5)));
        assert_eq!(parse_override("on=true"), Ok(("on".into(), 1.0)));
        assert_eq!(parse_override("on=false"), Ok(("on".into(), 0.0)));
        for bad in ["BLOCK", "=3", "BLOCK=big", "BLOCK=nan"] {
            let m = parse_override(bad).unwrap_err();
            assert!(m.contains(&format!("`{bad}`")), "{m}");
            assert!(m.contains("NAME=VALUE"), "{m}");
        }

        assert_eq!(parse_dispatch("64"), Ok([64, 1, 1]));
        assert_eq!(parse_dispatch("8,4"), Ok([8, 4, 1]));
        assert_eq!(parse_dispatch("2, 3, 4"), Ok([2, 3, 4]));
        for bad in ["", "0", "1,2,3,4", "a", "4,,1", "-1"] {
            let m = parse_dispatch(bad).unwrap_err();
            assert!(m.contains(&format!("`{bad}`")), "{m}");
            assert!(m.contains("X,Y,Z"), "{m}");
        }
        assert_eq!(invocations([64, 2, 1], [8, 4, 1]), 64 * 2 * 8 * 4);
    }

    const PADDED: &str = "struct P { a: u32, b: vec3<f32>, c: f32 }
@group(0) @binding(0) var<storage, read_write> p: P;
@group(0) @binding(1) var<storage, read_write> ps: array<P>;
@group(0) @binding(2) var<uniform> u: vec4<u32>;
@compute @workgroup_size(4) fn main() { p.c = ps[0].b.x + f32(u.x); }
";

    fn words(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn values_land_at_layout_offsets() {
        let k = kernel(PADDED);
        let p = &k.bindings[0];
        // a: u32 at 0; b: vec3<f32> aligned to 16, at 16..28; c: f32 at 28. Size 32.
        assert_eq!(p.size, BufferSize::Fixed(32));
        let fill: Fill = "values:7,1.5,2.5,3.5,4.5".parse().unwrap();
        let bytes = contents(p, p.size.bytes(0), &fill).unwrap();
        let f = |x: f32| x.to_bits();
        assert_eq!(words(&bytes), [7, 0, 0, 0, f(1.5), f(2.5), f(3.5), f(4.5)]);

        // The runtime array: element stride 32; values run on into the second element, the
        // rest stay zero.
        let ps = &k.bindings[1];
        let fill: Fill = "values:1,2,3,4,5,6".parse().unwrap();
        let bytes = contents(ps, ps.size.bytes(3), &fill).unwrap();
        assert_eq!(bytes.len(), 96);
        let w = words(&bytes);
        assert_eq!(w[..8], [1, 0, 0, 0, f(2.0), f(3.0), f(4.0), f(5.0)]);
        assert_eq!(w[8..], [6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn values_that_do_not_fit_are_errors() {
        let k = kernel(PADDED);
        let p = &k.bindings[0];
        let m = settings_error(contents(p, 32, &Fill::Values(vec![1.5])));
        assert!(
            m.contains("value 1 (1.5)") && m.contains("u32 at byte 0"),
            "{m}"
        );
        let m = settings_error(contents(p, 32, &Fill::Values(vec![-1.0])));
        assert!(m.contains("u32"), "{m}");
        let m = settings_error(contents(p, 32, &Fill::Values(vec![0.0; 6])));
        assert!(
            m.contains("gives 6 values") && m.contains("holds 5 scalars"),
            "{m}"
        );
        let ps = &k.bindings[1];
        let m = settings_error(contents(ps, 32, &Fill::Values(vec![0.0; 6])));
        assert!(m.contains("larger --len"), "{m}");
    }

    #[test]
    fn iota_and_random_follow_the_element_type() {
        let k = kernel(PADDED);
        let p = &k.bindings[0];
        let bytes = contents(p, 32, &Fill::Iota).unwrap();
        let f = |x: f32| x.to_bits();
        assert_eq!(words(&bytes), [0, 0, 0, 0, f(1.0), f(2.0), f(3.0), f(4.0)]);

        let ps = &k.bindings[1];
        let a = contents(ps, ps.size.bytes(64), &Fill::Random(9)).unwrap();
        assert_eq!(
            a,
            contents(ps, ps.size.bytes(64), &Fill::Random(9)).unwrap()
        );
        assert_ne!(
            a,
            contents(ps, ps.size.bytes(64), &Fill::Random(10)).unwrap()
        );
        let w = words(&a);
        for element in w.chunks(8) {
            // Padding stays zero; floats lie in [0, 1).
            assert_eq!(element[1..4], [0, 0, 0]);
            for &bits in &element[4..] {
                assert!((0.0..1.0).contains(&f32::from_bits(bits)), "{bits:#x}");
            }
        }
        // The u32 members take values across the whole range.
        assert!(w.chunks(8).any(|e| e[0] > u32::MAX / 2));
        // Two buffers with one seed differ.
        let u = &k.bindings[2];
        let b = contents(u, 16, &Fill::Random(9)).unwrap();
        assert_ne!(b[..], a[..16]);
    }

    #[test]
    fn file_fills_pads_and_rejects_oversize() {
        let k = kernel(PADDED);
        let ps = &k.bindings[1];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("in.bin");
        std::fs::write(&path, [1u8, 2, 3, 4, 5]).unwrap();
        let bytes = contents(ps, 64, &Fill::File(path.clone())).unwrap();
        assert_eq!(bytes[..6], [1, 2, 3, 4, 5, 0]);
        assert_eq!(bytes.len(), 64);

        std::fs::write(&path, [0u8; 70]).unwrap();
        let m = settings_error(contents(ps, 64, &Fill::File(path.clone())));
        assert!(
            m.contains("has 70 bytes") && m.contains("takes 64 bytes"),
            "{m}"
        );
        assert!(m.contains("--len ps=3"), "{m}");

        let missing = dir.path().join("missing.bin");
        let m = settings_error(contents(ps, 64, &Fill::File(missing.clone())));
        assert!(m.contains(&missing.display().to_string()), "{m}");
    }

    #[test]
    fn resolve_matches_bindings() {
        let k = kernel(PADDED);
        let specs: Vec<BufferSpec> = ["ps=iota", "0:2=zeros"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let lens = [parse_len("ps=10").unwrap()];
        let r = resolve(&k, &specs, &lens).unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].fill.clone(), r[0].len), (Fill::default(), None));
        assert_eq!((r[1].fill.clone(), r[1].len), (Fill::Iota, Some(10)));
        assert_eq!((r[2].fill.clone(), r[2].len), (Fill::Zeros, None));

        let unknown = ["q=iota".parse().unwrap()];
        let m = settings_error(resolve(&k, &unknown, &[]));
        assert!(
            m.contains("--buffer q=...") && m.contains("uses no binding `q`"),
            "{m}"
        );
        assert!(m.contains("p at 0:0 (storage, read_write)"), "{m}");
        assert!(m.contains("u at 0:2 (uniform)"), "{m}");

        let m = settings_error(resolve(&k, &[], &[parse_len("3:0=4").unwrap()]));
        assert!(m.contains("--len 3:0=..."), "{m}");

        let m = settings_error(resolve(&k, &[], &[parse_len("p=4").unwrap()]));
        assert!(m.contains("fixed size of 32 bytes"), "{m}");

        let twice = ["p=iota".parse().unwrap(), "0:0=zeros".parse().unwrap()];
        let m = settings_error(resolve(&k, &twice, &[]));
        assert!(m.contains("twice"), "{m}");
    }

    #[test]
    fn f16_conversion() {
        for (x, bits) in [
            (1.0f32, 0x3c00u16),
            (0.5, 0x3800),
            (-2.0, 0xc000),
            (65504.0, 0x7bff),
            (65520.0, 0x7c00),
            (0.1, 0x2e66),
            (1e-7, 0x0002),
            (6.0e-8, 0x0001),
            (0.0, 0x0000),
        ] {
            assert_eq!(f16_bits(x), bits, "{x}");
        }
    }
}
