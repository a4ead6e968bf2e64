//! The command-line forms: `--buffer BINDING=FILL`, `--len BINDING=N`, `--override
//! NAME=VALUE`, `--dispatch X[,Y[,Z]]`. The parsers return `Result<T, String>` (clap
//! `value_parser`s); their messages quote the bad input and show the expected form.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::profile::kernel::Binding;

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
    /// Raw little-endian bytes of a file; a shorter file is zero-padded. For a texture: an
    /// image, decoded.
    File(PathBuf),
    /// Textures only: red and green ramps along x and y (blue along z), alpha 1.
    Gradient,
    /// Textures only: cells of this many texels a side, alternately 0 and 1.
    Checker(u32),
}

/// `checker`'s cell size without one.
pub const DEFAULT_CHECKER_CELL: u32 = 8;

impl Default for Fill {
    fn default() -> Self {
        Self::Random(DEFAULT_SEED)
    }
}

const FILL_FORMS: &str = "zeros, iota, random, random:SEED, values:V1,V2,... or file:PATH \
                          (textures also: gradient, checker, checker:N, file:IMAGE.png)";

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
            ("gradient", None) => Ok(Self::Gradient),
            ("checker", None) => Ok(Self::Checker(DEFAULT_CHECKER_CELL)),
            ("checker", Some(n)) => match parse_u64(n) {
                Some(n @ 1..=65536) => Ok(Self::Checker(n as u32)),
                _ => Err(bad(format!(
                    "cell size `{n}` is not a whole number from 1 to 65536"
                ))),
            },
            ("zeros" | "iota" | "gradient", Some(_)) => {
                Err(bad(format!("`{kind}` takes no argument")))
            }
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
            Self::Gradient => f.write_str("gradient"),
            Self::Checker(n) => write!(f, "checker:{n}"),
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
        self.names(&b.name, b.group, b.binding)
    }

    /// Whether this names the resource `name` at `@group(group) @binding(binding)`.
    pub fn names(&self, name: &str, group: u32, binding: u32) -> bool {
        match self {
            Self::Name(n) => n == name,
            Self::Slot {
                group: g,
                binding: b,
            } => *g == group && *b == binding,
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

/// `--buffer BINDING=FILL`, or `--buffer BINDING.PLACE=NUMBER`: one scalar over the
/// binding's fill (`params.count=64`, `lights.dims.x=4`, `info.blocks[2].n=8`), or
/// `BINDING.PLACE=values:...`: each scalar under the place (`lights.dims=values:16,9,24`).
#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    /// Which binding.
    pub target: BindingRef,
    /// The scalar it sets, as WGSL writes it after the variable's name (`.dims.x`, `[3]`, and
    /// `` for a binding that is one scalar); `None` for a fill of the whole binding.
    pub place: Option<String>,
    /// What it holds: with a place, `values:` of its scalars.
    pub fill: Fill,
}

impl FromStr for BufferSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let Some((target, fill)) = s.split_once('=') else {
            return Err(format!(
                "`{s}` is not BINDING=FILL (e.g. `data=iota`, `0:1=values:1,2,3`) or \
                 BINDING.PLACE=NUMBER (`params.count=64`), where FILL is {FILL_FORMS}"
            ));
        };
        let target = target.trim();
        let (binding, place) = match target.find(['.', '[']) {
            Some(at) => (&target[..at], Some(target[at..].to_owned())),
            None => (target, None),
        };
        let number = parse_number(fill.trim());
        let (place, fill) = match (place, number) {
            (place, Some(v)) => (Some(place.unwrap_or_default()), Fill::Values(vec![v])),
            (None, None) => (None, fill.parse()?),
            (Some(place), None) => match fill.parse() {
                Ok(values @ Fill::Values(_)) => (Some(place), values),
                _ => {
                    return Err(format!(
                        "`{s}`: `{fill}` is not a number; a place takes one (e.g. \
                         `params.count=64`), or values:... for each scalar under it \
                         (`params.dims=values:4,4,1`)"
                    ));
                }
            },
        };
        Ok(Self {
            target: binding.parse()?,
            place,
            fill,
        })
    }
}

impl fmt::Display for BufferSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.place, &self.fill) {
            (Some(place), Fill::Values(values)) if values.len() == 1 => {
                write!(f, "{}{place}={}", self.target, values[0])
            }
            (Some(place), fill) => write!(f, "{}{place}={fill}", self.target),
            _ => write!(f, "{}={}", self.target, self.fill),
        }
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

pub(super) fn parse_u64(s: &str) -> Option<u64> {
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
