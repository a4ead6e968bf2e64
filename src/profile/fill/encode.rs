//! Encoding: the bytes of a binding's buffer for its fill, scalar by scalar in WGSL layout
//! order.

use std::ops::ControlFlow;

use naga::{Scalar, ScalarKind};

use super::files::elements_for;
use super::{Fill, Inferred, Resolved, Steps};
use crate::profile::error::{Error, Flag, Result};
use crate::profile::kernel::{Access, Binding, Shape, scalar_name};
use crate::user_file::{ReadError, read_at_most};

/// The bytes `binding` holds before the kernel runs, as `resolved` says, with a runtime-sized
/// array of [`Resolved::len_or`] elements. A uniform buffer left to the default fill holds
/// `invocations` in each of its integer scalars (see [`count_scalars`]) and the random fill
/// elsewhere.
pub fn initial(binding: &Binding, resolved: &Resolved, invocations: u64) -> Result<Vec<u8>> {
    let bytes = binding.size.bytes(resolved.len_or(invocations));
    let mut buf = match resolved.counts() {
        // The ends of another buffer's ranges take the random steps that buffer's default
        // fill takes: the same fill, seeded as that binding is.
        Some((
            _,
            &Steps::EndsOf {
                group, binding: b, ..
            },
        )) => {
            let starts = Binding {
                group,
                binding: b,
                ..binding.clone()
            };
            contents(&starts, bytes, &resolved.fill)?
        }
        _ => contents(binding, bytes, &resolved.fill)?,
    };
    if !resolved.given && binding.access == Access::Uniform {
        for (offset, scalar) in count_scalars(&binding.shape) {
            put(&mut buf, offset, scalar.width, held(invocations, scalar));
        }
    }
    for inferred in &resolved.inferred {
        match *inferred {
            Inferred::Flag { offset, value, .. }
            | Inferred::Size {
                offset,
                value: Some(value),
                ..
            } => {
                if let Some((_, s)) = count_scalars(&binding.shape)
                    .into_iter()
                    .find(|&(at, _)| at == offset)
                {
                    put(&mut buf, offset, s.width, value);
                }
            }
            Inferred::Size { value: None, .. } => {}
            Inferred::Bound {
                offset,
                scalar,
                value,
                ..
            } => {
                if offset + u64::from(scalar.width) <= buf.len() as u64 {
                    put(&mut buf, offset, scalar.width, value);
                }
            }
            Inferred::Bits { .. } => cut_integers(binding, bytes, &mut buf, 1, &Steps::Cut),
            Inferred::Counts {
                bits, ref steps, ..
            } => cut_integers(binding, bytes, &mut buf, bits, steps),
        }
    }
    for set in &resolved.sets {
        let end = set.offset + u64::from(set.scalar.width);
        if end > bytes {
            let len = binding.size.len_for(bytes);
            return Err(bad_fill(
                binding,
                Some(Flag::Buffer),
                format!(
                    "--buffer {set}: the place is past the end of {}, which holds {len} elements \
                     here; name a smaller index or pass a larger --len",
                    binding.label()
                ),
            ));
        }
        let Some(bits) = value_bits(set.value, set.scalar) else {
            return Err(bad_fill(
                binding,
                Some(Flag::Buffer),
                format!(
                    "--buffer {set}: {} does not fit the {} there",
                    set.value,
                    scalar_name(set.scalar)
                ),
            ));
        };
        put(&mut buf, set.offset, set.scalar.width, bits);
    }
    Ok(buf)
}

/// Keeps the lowest `bits` bits of each integer scalar of `buf`, `binding`'s `bytes` bytes; or,
/// where they are ranges' starts ([`Steps::Ascending`], [`Steps::StartsOf`]), makes each the sum
/// of those kept before it (held below the type's largest value), so that they ascend by what
/// was kept; or, where they are ends ([`Steps::EndsOf`]), the sum up to and with it.
fn cut_integers(binding: &Binding, bytes: u64, buf: &mut [u8], bits: u32, steps: &Steps) {
    let len = binding.size.len_for(bytes);
    let mut sum = 0u64;
    let _ = binding
        .shape
        .for_each_scalar(0, len, &mut |offset, scalar| {
            let (at, width) = (offset as usize, usize::from(scalar.width));
            if matches!(scalar.kind, ScalarKind::Uint | ScalarKind::Sint) && at + width <= buf.len()
            {
                let mut word = [0u8; 8];
                word[..width].copy_from_slice(&buf[at..at + width]);
                let kept = u64::from_le_bytes(word) & ((1u64 << bits) - 1);
                let before = sum;
                sum += kept;
                let value = match steps {
                    Steps::Cut => kept,
                    Steps::Ascending | Steps::StartsOf { .. } => held(before, scalar),
                    Steps::EndsOf { .. } => held(sum, scalar),
                };
                buf[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
            }
            ControlFlow::Continue(())
        });
}

/// `invocations` as an integer of type `scalar`: held at the type's largest value.
pub fn held(invocations: u64, scalar: Scalar) -> u64 {
    let bits = u32::from(scalar.width) * 8;
    match scalar.kind {
        ScalarKind::Sint => invocations.min((1u64 << (bits - 1)) - 1),
        _ => invocations.min(u64::MAX >> (64 - bits)),
    }
}

/// The integer scalars of a uniform buffer that the default fill sets to the dispatch's
/// invocations: a bare integer or integer vector, and the integer members of its structs
/// (nested ones too) and their components (a grid's `size: vec3<u32>`), but nothing inside an
/// array or matrix. Offsets from the buffer's start.
pub fn count_scalars(shape: &Shape) -> Vec<(u64, Scalar)> {
    fn walk(shape: &Shape, offset: u64, out: &mut Vec<(u64, Scalar)>) {
        match shape {
            Shape::Scalar(s) if matches!(s.kind, ScalarKind::Uint | ScalarKind::Sint) => {
                out.push((offset, *s));
            }
            Shape::Array {
                element,
                count,
                stride,
                vector: true,
            } => {
                for k in 0..*count {
                    walk(element, offset + k * stride, out);
                }
            }
            Shape::Struct(members) => {
                for (_, at, m) in members {
                    walk(m, offset + at, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(shape, 0, &mut out);
    out
}

/// The `bytes` bytes of `binding`'s buffer filled with `fill` (a runtime-sized array holds as
/// many elements as fit). See [`Fill`] for each form.
pub fn contents(binding: &Binding, bytes: u64, fill: &Fill) -> Result<Vec<u8>> {
    // Values, files and texture fills come from `--buffer`; a size from either option.
    let bad = |flag, why| bad_fill(binding, flag, why);
    let size = usize::try_from(bytes).map_err(|_| {
        bad(
            None,
            format!("{} would take {bytes} bytes", binding.label()),
        )
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
        Fill::Values(values) => write_values(binding, bytes, values, &mut each)?,
        Fill::File(path) => {
            let data = read_file(binding, bytes, path)?;
            buf[..data.len()].copy_from_slice(&data);
        }
        Fill::Gradient | Fill::Checker(_) => {
            return Err(bad(
                Some(Flag::Buffer),
                format!(
                    "{fill} fills textures only, and {} is a buffer; use zeros, iota, random, \
                     values:... or file:PATH",
                    binding.label()
                ),
            ));
        }
    }
    Ok(buf)
}

/// `values:...` in layout order through `each`; an error where a value does not fit its
/// scalar, or where more values are given than the buffer holds.
fn write_values(
    binding: &Binding,
    bytes: u64,
    values: &[f64],
    each: &mut dyn FnMut(&mut ScalarWriter<'_>) -> ControlFlow<()>,
) -> Result<()> {
    let bad = |why| bad_fill(binding, Some(Flag::Buffer), why);
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
                    scalar_name(scalar),
                    binding.label()
                ));
                ControlFlow::Break(())
            }
        }
    });
    if let Some(message) = failure {
        return Err(bad(message));
    }
    if next.count() > 0 {
        let holds = binding.shape.scalar_count(binding.size.len_for(bytes));
        let hint = if binding.size.is_runtime() {
            "; give fewer values or a larger --len"
        } else {
            "; give fewer values"
        };
        return Err(bad(format!(
            "values: gives {} values but {} holds {holds} scalars ({bytes} bytes){hint}",
            values.len(),
            binding.label()
        )));
    }
    Ok(())
}

/// The bytes of `file:PATH`: at most the buffer's bytes and one more, never a whole 1 GB file
/// (or the endless /dev/zero, which is refused as no regular file) for a buffer of 256 bytes.
fn read_file(binding: &Binding, bytes: u64, path: &std::path::Path) -> Result<Vec<u8>> {
    let bad = |why| bad_fill(binding, Some(Flag::Buffer), why);
    read_at_most(path, bytes).map_err(|e| {
        let Some(len) = (match e {
            ReadError::TooLarge(len) => Some(len),
            _ => None,
        }) else {
            return bad(format!(
                "cannot read file:{} for {}: {e}",
                path.display(),
                binding.label()
            ));
        };
        // `check_limits` has refused a file no --len can fit, so this one can.
        let hint = match len.and_then(|len| elements_for(binding.size, len)) {
            Some(n) => format!("; pass --len {}={n} to fit it", binding.name),
            None => String::new(),
        };
        let has = len.map_or_else(|| "more".to_owned(), |len| len.to_string());
        bad(format!(
            "file:{} has {has} bytes but {} takes {bytes} bytes{hint}",
            path.display(),
            binding.label()
        ))
    })
}

/// `binding`'s fill cannot be made, for `why`; `flag` names the option at fault where one is.
fn bad_fill(binding: &Binding, flag: Option<Flag>, why: String) -> Error {
    Error::BadFill {
        flag,
        binding: Some(binding.slot()),
        why,
    }
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

/// IEEE binary16 bits of `x`, rounded to nearest even (the `half` crate, as the texels use).
pub(super) fn f16_bits(x: f32) -> u16 {
    half::f16::from_f32(x).to_bits()
}

/// A float as a preview shows it: whole numbers as they are, others to four decimals.
fn short(v: f64) -> String {
    if v.fract() == 0.0 || !v.is_finite() {
        format!("{v}")
    } else {
        format!("{v:.4}")
    }
}

/// How many values [`first_values`] shows.
pub const PREVIEW_VALUES: usize = 8;

/// The first [`PREVIEW_VALUES`] scalars of `bytes` laid out as `binding`, in layout order,
/// each as [`scalar_text`] writes it.
pub fn first_values(binding: &Binding, bytes: &[u8]) -> Vec<String> {
    let len = binding.size.len_for(bytes.len() as u64);
    let mut out = Vec::new();
    let _ = binding
        .shape
        .for_each_scalar(0, len, &mut |offset, scalar| {
            let at = offset as usize;
            let Some(raw) = bytes.get(at..at + usize::from(scalar.width)) else {
                return ControlFlow::Break(());
            };
            out.push(scalar_text(scalar, raw));
            if out.len() >= PREVIEW_VALUES {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
    out
}

/// One scalar's little-endian bytes as WGSL would print it (`7u`, `-3i`, `0.25`, `true`); a
/// 16-bit float shows its bits.
pub fn scalar_text(scalar: Scalar, raw: &[u8]) -> String {
    let mut word = [0u8; 8];
    let n = raw.len().min(8);
    word[..n].copy_from_slice(&raw[..n]);
    let bits = u64::from_le_bytes(word);
    match (scalar.kind, scalar.width) {
        (ScalarKind::Uint, _) => format!("{bits}u"),
        (ScalarKind::Sint, 4) => format!("{}i", bits as u32 as i32),
        (ScalarKind::Sint, _) => format!("{}i", bits as i64),
        (ScalarKind::Float, 4) => short(f64::from(f32::from_bits(bits as u32))),
        (ScalarKind::Float, 8) => short(f64::from_bits(bits)),
        (ScalarKind::Bool, _) => (bits != 0).to_string(),
        _ => format!("0x{bits:x}"),
    }
}
