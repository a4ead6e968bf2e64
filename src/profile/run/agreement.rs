//! The kernel's outputs instrumented against alone: what the counted run wrote to its
//! `read_write` buffers and storage textures, against what a run of the kernel alone writes from
//! fresh resources filled alike, and, where they differ, against a second run alone (a kernel
//! whose result depends on timing differs from itself too).

use std::ops::ControlFlow;

use crate::Result;
use crate::gpu::{GpuContext, level_bytes, read_buffer};
use crate::profile::fill::scalar_text;
use crate::profile::kernel::{Access, Binding, Kernel, KernelInterface};
use crate::profile::report::{OutputComparison, OutputDifference, OutputUnit, OutputsRecord};

use super::Request;
use super::bind::{Resources, dispatch, resources};

/// The most bytes of outputs read back for the check: a copy of each is held on the host, two
/// at a time.
pub(super) const MAX_COMPARED_BYTES: u64 = 256 << 20;

/// The most runs of the kernel alone where the instrumented run's outputs differ from the
/// first: a race can come out alike in two runs (on lavapipe, a prefix sum that eight
/// workgroups update in place agreed in three of five pairs), and each run more is one dispatch.
const RUNS_ALONE: u32 = 4;

/// What the kernel can write, read back: the `read_write` buffers in the interface's order,
/// then the written storage textures, every layer.
pub(super) enum Outputs {
    /// Each resource's bytes.
    Read(Vec<Vec<u8>>),
    /// Left unread: this many bytes, over [`MAX_COMPARED_BYTES`].
    TooLarge(u64),
}

/// One resource the kernel can write, as [`Outputs`] holds it.
enum Written<'a> {
    /// A `read_write` buffer: its binding, and its buffer.
    Buffer(&'a Binding, &'a wgpu::Buffer),
    /// A written storage texture: its label, texel size and texture.
    Texture(String, u32, &'a wgpu::Texture),
}

fn written<'a>(interface: &'a KernelInterface, resources: &'a Resources) -> Vec<Written<'a>> {
    let buffers = (interface.bindings.iter())
        .zip(&resources.buffers)
        .filter(|(b, _)| b.access == Access::StorageReadWrite)
        .filter_map(|(b, buffer)| Some(Written::Buffer(b, buffer.as_ref()?)));
    let textures = (resources.textures.iter())
        .filter(|made| interface.textures[made.index].is_written())
        .filter_map(|made| {
            let texel = made.format.block_copy_size(None)?;
            let label = interface.textures[made.index].label();
            Some(Written::Texture(label, texel, &made.texture))
        });
    buffers.chain(textures).collect()
}

/// The outputs of a run on `resources`, as they are now.
pub(super) fn read_outputs(
    gpu: &GpuContext,
    interface: &KernelInterface,
    resources: &Resources,
) -> Result<Outputs> {
    let written = written(interface, resources);
    let bytes: u64 = (written.iter())
        .map(|w| match w {
            Written::Buffer(_, buffer) => buffer.size(),
            Written::Texture(_, texel, texture) => level_bytes(texture, *texel),
        })
        .sum();
    if bytes > MAX_COMPARED_BYTES {
        return Ok(Outputs::TooLarge(bytes));
    }
    Ok(Outputs::Read(read_written(gpu, &written)?))
}

/// Each of `written`'s bytes, as they are now.
fn read_written(gpu: &GpuContext, written: &[Written<'_>]) -> Result<Vec<Vec<u8>>> {
    let what = "reading the kernel's outputs back";
    written
        .iter()
        .map(|w| match w {
            Written::Buffer(_, buffer) => read_buffer(gpu, what, buffer),
            Written::Texture(_, texel, texture) => {
                let layers = texture.depth_or_array_layers();
                gpu.read_texture_layers(what, texture, *texel, layers)
            }
        })
        .collect()
}

/// The counted run's `outputs` against the kernel alone (`plain`, its pipeline), run from fresh
/// resources; where some differ, a second run alone says whether the kernel differs from itself.
pub(super) fn compare(
    gpu: &GpuContext,
    request: &Request,
    kernel: &Kernel,
    plain: &wgpu::ComputePipeline,
    outputs: &Outputs,
) -> Result<OutputsRecord> {
    let counted = match outputs {
        Outputs::Read(read) => read,
        Outputs::TooLarge(bytes) => {
            return Ok(OutputsRecord {
                resources: Vec::new(),
                not_compared: Some(format!(
                    "the kernel's writable buffers and textures hold {} MiB, more than the {} \
                     MiB divlab reads back to compare",
                    bytes >> 20,
                    MAX_COMPARED_BYTES >> 20
                )),
                atomics: false,
            });
        }
    };
    let interface = &kernel.interface;
    // The first is the plain pipeline's first run, which llvmpipe compiles it in.
    let run_alone = |label: &str| -> Result<(Resources, Vec<Vec<u8>>)> {
        let fresh = resources(gpu, kernel, request)?;
        let alone = dispatch(gpu, plain, interface, &fresh, None, request.dispatch);
        gpu.run_batch(label, &[alone])?;
        // The same resources as the counted run's, so within the bound it was read under.
        let read = read_written(gpu, &written(interface, &fresh))?;
        Ok((fresh, read))
    };
    let (fresh, alone) = run_alone(&gpu.first_run(&request.file))?;
    let written = written(interface, &fresh);
    let tallies: Vec<Tally> = (written.iter().zip(counted).zip(&alone))
        .map(|((w, ours), theirs)| tally(w, ours, theirs))
        .collect();
    // Where some differ, the kernel alone against itself: run again until a run differs from
    // the first, since a race can come out alike twice.
    let differs = tallies.iter().any(|t| t.differing > 0);
    let mut differing_alone = vec![0; written.len()];
    let mut runs_alone = 1;
    while differs && runs_alone < RUNS_ALONE {
        let again = run_alone(&request.file)?.1;
        runs_alone += 1;
        for (i, w) in written.iter().enumerate() {
            let differing = tally(w, &alone[i], &again[i]).differing;
            differing_alone[i] = differing_alone[i].max(differing);
        }
        if differing_alone.iter().any(|&d| d > 0) {
            break;
        }
    }
    let resources = (written.iter().zip(tallies).enumerate())
        .map(|(i, (w, t))| {
            let difference = t.first.map(|first| OutputDifference {
                first,
                float_ulps: t.float_ulps,
                differing_alone: differing_alone[i],
                runs_alone,
            });
            let (label, unit) = match w {
                Written::Buffer(binding, _) => (binding.label(), OutputUnit::Values),
                Written::Texture(label, ..) => (label.clone(), OutputUnit::Texels),
            };
            OutputComparison {
                label,
                unit,
                compared: t.compared,
                differing: t.differing,
                difference,
            }
        })
        .collect();
    Ok(OutputsRecord {
        resources,
        not_compared: None,
        atomics: (kernel.module.types.iter())
            .any(|(_, t)| matches!(t.inner, naga::TypeInner::Atomic(_))),
    })
}

/// One resource's outputs counted against another run's.
struct Tally {
    /// Values or texels compared.
    compared: u64,
    /// How many differ.
    differing: u64,
    /// The first that differs, with both values.
    first: Option<String>,
    /// Where every value that differs is a finite float: the largest gap, in units in the last
    /// place.
    float_ulps: Option<u64>,
}

/// `ours` (instrumented) against `theirs` (alone), value by value or texel by texel.
fn tally(written: &Written<'_>, ours: &[u8], theirs: &[u8]) -> Tally {
    match written {
        Written::Buffer(binding, _) => tally_values(binding, ours, theirs),
        Written::Texture(_, texel, texture) => {
            let size = texture.size();
            let extent = [size.width, size.height, size.depth_or_array_layers];
            tally_texels(*texel, extent, ours, theirs)
        }
    }
}

/// A buffer's scalars in layout order (padding left out).
fn tally_values(binding: &Binding, ours: &[u8], theirs: &[u8]) -> Tally {
    let len = binding.size.len_for(ours.len() as u64);
    let (mut compared, mut differing, mut first) = (0, 0, None);
    // The largest gap between differing floats, while every differing value is one.
    let mut float_ulps = Some(0);
    let _ = binding
        .shape
        .for_each_scalar(0, len, &mut |offset, scalar| {
            let at = offset as usize..offset as usize + usize::from(scalar.width);
            let (Some(a), Some(b)) = (ours.get(at.clone()), theirs.get(at)) else {
                return ControlFlow::Break(());
            };
            compared += 1;
            if a != b {
                differing += 1;
                float_ulps = float_ulps.zip(ulps(scalar, a, b)).map(|(m, u)| m.max(u));
                first.get_or_insert_with(|| {
                    format!(
                        "byte {offset}: {} instrumented, {} alone",
                        exact_text(scalar, a),
                        exact_text(scalar, b)
                    )
                });
            }
            ControlFlow::Continue(())
        });
    Tally {
        compared,
        differing,
        first,
        float_ulps: float_ulps.filter(|_| differing > 0),
    }
}

/// A value as the report shows it, a float to as many digits as tell it from its neighbours
/// (two outputs that differ in the last bit must not read alike).
fn exact_text(scalar: naga::Scalar, raw: &[u8]) -> String {
    if scalar.kind == naga::ScalarKind::Float {
        if let Ok(bytes) = raw.try_into() {
            return f32::from_le_bytes(bytes).to_string();
        }
        if let Ok(bytes) = raw.try_into() {
            return f64::from_le_bytes(bytes).to_string();
        }
    }
    scalar_text(scalar, raw)
}

/// How many floats lie between `a` and `b` (units in the last place), for finite 32- and
/// 64-bit floats; `None` for other scalars, NaNs and infinities.
fn ulps(scalar: naga::Scalar, a: &[u8], b: &[u8]) -> Option<u64> {
    if scalar.kind != naga::ScalarKind::Float {
        return None;
    }
    // Floats of one sign order as their bits do; the other sign counts down from zero.
    let ordered = |raw: &[u8]| -> Option<i128> {
        let (bits, sign, finite) = match raw.len() {
            4 => {
                let v = f32::from_le_bytes(raw.try_into().ok()?);
                (
                    i128::from(v.to_bits() & !(1 << 31)),
                    v.is_sign_negative(),
                    v.is_finite(),
                )
            }
            8 => {
                let v = f64::from_le_bytes(raw.try_into().ok()?);
                (
                    i128::from(v.to_bits() & !(1 << 63)),
                    v.is_sign_negative(),
                    v.is_finite(),
                )
            }
            _ => return None,
        };
        finite.then_some(if sign { -bits } else { bits })
    };
    u64::try_from((ordered(a)? - ordered(b)?).unsigned_abs()).ok()
}

/// A texture of `[width, height, layers]` texels, `texel` bytes a texel, layer by layer and rows
/// top to bottom; a texel is placed by (x, y), with its layer where there are several.
fn tally_texels(
    texel: u32,
    [width, height, layers]: [u32; 3],
    ours: &[u8],
    theirs: &[u8],
) -> Tally {
    let texel = texel as usize;
    let mut pairs = ours.chunks(texel).zip(theirs.chunks(texel)).enumerate();
    let first = pairs.clone().find(|(_, (a, b))| a != b).map(|(i, (a, b))| {
        let (w, h) = (width as usize, height as usize);
        let (x, y, layer) = (i % w, i / w % h, i / (w * h));
        let at = if layers > 1 {
            format!("({x}, {y}, {layer})")
        } else {
            format!("({x}, {y})")
        };
        format!("texel {at}: 0x{} instrumented, 0x{} alone", hex(a), hex(b))
    });
    let differing = pairs.by_ref().filter(|(_, (a, b))| a != b).count() as u64;
    Tally {
        compared: (ours.len() / texel) as u64,
        differing,
        first,
        // A texel's format is not decoded here.
        float_ulps: None,
    }
}

/// Bytes as hex, in memory order.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_shown_to_the_digit_that_differs_and_their_gap_counted() {
        let f32s = naga::Scalar::F32;
        let (a, b) = (0.25f32, f32::from_bits(0.25f32.to_bits() + 4));
        assert_eq!(ulps(f32s, &a.to_le_bytes(), &b.to_le_bytes()), Some(4));
        assert_eq!(exact_text(f32s, &b.to_le_bytes()), "0.25000012");
        // Across zero, the floats of both signs between them count.
        let tiny = f32::from_bits(2);
        assert_eq!(
            ulps(f32s, &tiny.to_le_bytes(), &(-tiny).to_le_bytes()),
            Some(4)
        );
        let f64s = naga::Scalar::F64;
        let c = f64::from_bits(1.5f64.to_bits() + 7);
        assert_eq!(ulps(f64s, &1.5f64.to_le_bytes(), &c.to_le_bytes()), Some(7));
        // Not a float's gap: NaN, or an integer.
        let nan = f32::NAN.to_le_bytes();
        assert_eq!(ulps(f32s, &nan, &a.to_le_bytes()), None);
        assert_eq!(ulps(naga::Scalar::U32, &[1, 0, 0, 0], &[2, 0, 0, 0]), None);
    }

    #[test]
    fn texels_are_counted_and_the_first_difference_placed() {
        // A 3-texel-wide picture of 2-byte texels: texels 4 and 5 differ.
        let ours = [0u8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
        let mut theirs = ours;
        theirs[8] = 0xff;
        theirs[11] = 0xee;
        let t = tally_texels(2, [3, 2, 1], &ours, &theirs);
        assert_eq!((t.compared, t.differing), (6, 2));
        assert_eq!(
            t.first.as_deref(),
            Some("texel (1, 1): 0x0809 instrumented, 0xff09 alone")
        );
        // The same bytes as two layers of 3 × 1 texels: texel 4 is (1, 0) of layer 1.
        let t = tally_texels(2, [3, 1, 2], &ours, &theirs);
        assert_eq!(
            t.first.as_deref(),
            Some("texel (1, 0, 1): 0x0809 instrumented, 0xff09 alone")
        );
    }
}
