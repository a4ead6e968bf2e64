//! Everything that can be checked before the device runs anything, phase by phase: the
//! dispatch against the adapter, the counters' bind group, the loop cap, and the instrumented
//! module (twice with `--lanes`: the line's block is known only after the first pass).

use crate::gpu::{GpuContext, LLVMPIPE_LOOP_ITERATIONS};
use crate::profile::Error as ProfileError;
use crate::profile::instrument::{self, InstrumentOptions, Instrumented};
use crate::profile::kernel::{Kernel, KernelInterface};
use crate::profile::report::{self, OBSERVER_NOTE};
use crate::{Error, Result};

use super::{Counts, Request};

/// Loop iterations kept free under llvmpipe's limit for those an invocation still runs after
/// crossing the cap: divlab's own rounds after each enclosing loop it counts after its end.
const LLVMPIPE_CAP_ROOM: u32 = 1024;

/// The highest loop cap that fires before llvmpipe's own limit on most kernels: the cap a
/// profile on llvmpipe starts from, `u32::MAX` (no ceiling) elsewhere. Deep nests of short
/// loops can still run out of llvmpipe's passes first (divlab's rounds after a loop are
/// passes too): the instrumented kernel probes for it
/// ([`InstrumentOptions::probe_loop_limit`]), and the profile counts again with the ceiling
/// halved.
pub(super) fn cap_ceiling(gpu: &GpuContext) -> u32 {
    if gpu.is_llvmpipe() {
        LLVMPIPE_LOOP_ITERATIONS - 1 - LLVMPIPE_CAP_ROOM
    } else {
        u32::MAX
    }
}

/// A kernel prepared for profiling: its instrumented form, the cap in force, and the notes so
/// far.
pub(super) struct Prepared {
    /// The instrumented kernel.
    pub instrumented: Instrumented,
    /// The loop cap in force (lowered on llvmpipe, where a cap near
    /// [`LLVMPIPE_LOOP_ITERATIONS`] would not fire before llvmpipe's own silent limit).
    pub loop_cap: u32,
    /// Remarks for the report.
    pub notes: Vec<String>,
}

/// Instruments `kernel` as `request` asks, for this device, with the loop cap at most
/// `ceiling` ([`cap_ceiling`], or lower where llvmpipe's limit ran out first).
pub(super) fn prepare(
    gpu: &GpuContext,
    kernel: &Kernel,
    request: &Request,
    ceiling: u32,
) -> Result<Prepared> {
    let counters_group = counters_group(gpu, kernel)?;
    let (loop_cap, llvmpipe_note) = loop_cap(gpu, request.loop_cap, ceiling);
    let mut options = InstrumentOptions {
        subgroups: gpu.caps.subgroups && request.counts == Counts::Subgroups,
        loop_cap,
        counters_group,
        lanes_block: None,
        invocations: (request.dispatch.iter())
            .chain(&kernel.interface.workgroup_size)
            .map(|&n| u64::from(n))
            .product(),
        ballot_words: match gpu.info.subgroup_max_size {
            1..=128 => gpu.info.subgroup_max_size.div_ceil(32),
            _ => 4,
        },
        probe_loop_limit: gpu.is_llvmpipe(),
    };
    let instrument = |options: &InstrumentOptions| {
        let entry = &kernel.interface.entry;
        instrument::instrument(&kernel.module, &kernel.prepared, entry, options)
    };
    let mut instrumented = instrument(&options)?;
    let sum_note = (options.loop_cap > instrumented.max_loop_cap).then(|| {
        let (lanes, most) = (32 * options.ballot_words, instrumented.max_loop_cap);
        options.loop_cap = most;
        format!(
            "divlab adds a loop's counts over a subgroup's lanes in 32 bits: with up to {lanes} \
             lanes and the calls of this kernel's functions, a cap above {most} could wrap a \
             sum, so the loop cap is lowered to {most} here"
        )
    });
    if sum_note.is_some() {
        instrumented = instrument(&options)?;
    }
    if let Some(line) = request.lanes_line {
        // The blocks are numbered the same on the second pass: record at the line's owner.
        options.lanes_block = Some(lanes_block(gpu, kernel, &instrumented, line)?);
        instrumented = instrument(&options)?;
    }
    let mut notes = vec![if options.subgroups {
        OBSERVER_NOTE.to_owned()
    } else {
        "the counters are private increments added atomically where an invocation leaves the \
         kernel; a compiler may schedule the kernel differently around them, so the profile is \
         of the instrumented kernel"
            .to_owned()
    }];
    // Said only where it matters: a kernel without loops never meets llvmpipe's limit.
    notes.extend(llvmpipe_note.filter(|_| !instrumented.loops.is_empty()));
    notes.extend(sum_note);
    if !gpu.caps.subgroups {
        notes.push(
            "this adapter has no subgroup operations: executions count invocations, and \
             efficiency and divergence are not measured"
                .to_owned(),
        );
    } else if !options.subgroups {
        notes.push(
            "--counts invocations: executions count invocations (each lane its own passes, \
             with no subgroup operation in the counters), and efficiency and divergence are \
             not measured; the default, --counts subgroups, measures them"
                .to_owned(),
        );
    }
    Ok(Prepared {
        loop_cap: options.loop_cap,
        instrumented,
        notes,
    })
}

/// The lowest group the entry point leaves free, whose slots 0 and 1 (the counters and the
/// lane records) no other entry point's variable holds either.
fn counters_group(gpu: &GpuContext, kernel: &Kernel) -> Result<u32> {
    let used: Vec<u32> = kernel.interface.groups().collect();
    let taken = |g: u32| {
        kernel.module.global_variables.iter().any(|(_, v)| {
            v.binding
                .as_ref()
                .is_some_and(|b| b.group == g && b.binding <= 1)
        })
    };
    let counters_group = (0..)
        .find(|&g| !used.contains(&g) && !taken(g))
        .unwrap_or(u32::MAX);
    let max_groups = gpu.limits().max_bind_groups;
    if counters_group >= max_groups {
        return Err(ProfileError::NoCountersGroup {
            highest: used.iter().copied().max().unwrap_or(0),
            available: max_groups,
        }
        .into());
    }
    Ok(counters_group)
}

/// The loop cap in force for `asked` under `ceiling`, and the note where llvmpipe lowers it.
fn loop_cap(gpu: &GpuContext, asked: u32, ceiling: u32) -> (u32, Option<String>) {
    let loop_cap = asked.max(1);
    // The cap counts every loop iteration of an invocation, divlab's own after a loop included,
    // as llvmpipe does; once it is crossed, each enclosing counted loop still runs its own
    // rounds (at most 130) on the way out: leave room for them under llvmpipe's limit.
    if loop_cap <= ceiling {
        return (loop_cap, None);
    }
    let limit = format!(
        "llvmpipe ends the loops of a subgroup after {LLVMPIPE_LOOP_ITERATIONS} passes in all, \
         silently"
    );
    let note = if ceiling == cap_ceiling(gpu) {
        format!("{limit}, so the loop cap is lowered to {ceiling} here")
    } else {
        format!(
            "{limit}, and on this kernel it ran out before a higher cap fired: it counts every \
             pass of a subgroup's loops, its lanes' together and divlab's own, where the cap \
             counts one invocation's trips. The loop cap is lowered to {ceiling} here"
        )
    };
    (ceiling, Some(note))
}

/// The block that `--lanes LINE` records at: the owner of `line` in the first pass.
fn lanes_block(
    gpu: &GpuContext,
    kernel: &Kernel,
    instrumented: &Instrumented,
    line: u32,
) -> Result<usize> {
    if !gpu.caps.subgroups {
        return Err(Error::Unsupported {
            what: format!("--lanes {line}"),
            feature: "subgroup operations (a ballot per subgroup)".to_owned(),
        });
    }
    if !instrumented.options.subgroups {
        return Err(ProfileError::BadLanes {
            line,
            why: "--counts invocations makes no ballot to record; leave it out (the default, \
                  --counts subgroups) to see which lanes ran the line together"
                .to_owned(),
        }
        .into());
    }
    let lines = crate::source_map::SourceMap::new(&kernel.source).line_count();
    if line == 0 || line as usize > lines {
        return Err(ProfileError::BadLanes {
            line,
            why: format!(
                "{} has lines 1 to {lines}; name a line with a statement",
                kernel.file
            ),
        }
        .into());
    }
    report::line_owner(instrumented, line).ok_or_else(|| {
        ProfileError::BadLanes {
            line,
            why: format!(
                "{}:{line} has no code the entry point `{}` runs (a comment, a declaration, or \
                 a function it never calls); name a line with a statement",
                kernel.file, kernel.interface.entry
            ),
        }
        .into()
    })
}

/// The most workgroups one profile dispatches: drivers count a dispatch's workgroups in 32 bits
/// (lavapipe wraps 2³² to 0 and runs nothing, silently).
pub const MAX_WORKGROUPS: u64 = u32::MAX as u64;

/// Refuses a dispatch the adapter takes only in part: a dimension over `per_dimension`, or
/// [`MAX_WORKGROUPS`] exceeded in all.
pub(super) fn check_dispatch(dispatch: [u32; 3], per_dimension: u32) -> Result<()> {
    let too_large = |asked: u64, along: &str, limit: &str, max: u64| {
        Err(ProfileError::DispatchTooLarge {
            dispatch: dispatch.map(|n| n.to_string()).join(","),
            asked,
            along: along.to_owned(),
            limit: limit.to_owned(),
            max,
        }
        .into())
    };
    for (n, axis) in dispatch.into_iter().zip(["x", "y", "z"]) {
        if n > per_dimension {
            return too_large(
                n.into(),
                &format!(" along {axis}"),
                "this adapter's `max_compute_workgroups_per_dimension`",
                per_dimension.into(),
            );
        }
    }
    let total: u64 = dispatch.iter().map(|&n| u64::from(n)).product();
    if total > MAX_WORKGROUPS {
        return too_large(
            total,
            "",
            "the most divlab profiles in one dispatch (2^32 - 1, since drivers count workgroups \
             in 32 bits)",
            MAX_WORKGROUPS,
        );
    }
    Ok(())
}

/// Refuses a workgroup the adapter does not run, before divlab instruments it (wgpu's own
/// refusal would name the instrumented pipeline, as if the fault were divlab's).
pub(super) fn check_workgroup(interface: &KernelInterface, limits: &wgpu::Limits) -> Result<()> {
    let per_dimension = [
        limits.max_compute_workgroup_size_x,
        limits.max_compute_workgroup_size_y,
        limits.max_compute_workgroup_size_z,
    ];
    let max_invocations = limits.max_compute_invocations_per_workgroup;
    let (size, invocations) = (interface.workgroup_size, interface.workgroup_invocations());
    let within = size.iter().zip(per_dimension).all(|(&n, max)| n <= max);
    if within && invocations <= u64::from(max_invocations) {
        return Ok(());
    }
    Err(ProfileError::WorkgroupTooLarge {
        size,
        invocations,
        per_dimension,
        max_invocations,
    }
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `result`'s error, which must say each of `words`.
    fn refused_saying(result: Result<()>, words: &[&str]) {
        let message = result.expect_err("refused").to_string();
        for word in words {
            assert!(message.contains(word), "{word}: {message}");
        }
    }

    #[test]
    fn dispatches_past_32_bits_or_a_dimension_are_refused() {
        assert!(check_dispatch([65535, 65535, 1], 65535).is_ok());
        refused_saying(
            check_dispatch([4096, 4096, 256], 65535),
            &["4294967296 workgroups, and the most divlab profiles"],
        );
        refused_saying(
            check_dispatch([70000, 1, 1], 65535),
            &[
                "70000 workgroups along x",
                "`max_compute_workgroups_per_dimension` is 65535",
            ],
        );
    }

    #[test]
    fn workgroups_past_a_dimension_or_the_total_are_refused() {
        let limits = wgpu::Limits::defaults();
        let check_workgroup = |workgroup_size, limits: &wgpu::Limits| {
            let interface = KernelInterface {
                entry: "main".to_owned(),
                workgroup_size,
                bindings: Vec::new(),
                textures: Vec::new(),
                samplers: Vec::new(),
            };
            check_workgroup(&interface, limits)
        };
        assert!(check_workgroup([256, 1, 1], &limits).is_ok());
        assert!(check_workgroup([16, 16, 1], &limits).is_ok());
        refused_saying(
            check_workgroup([512, 1, 1], &limits),
            &[
                "[512, 1, 1] (512 invocations)",
                "at most [256, 256, 64] along x, y, z",
            ],
        );
        refused_saying(
            check_workgroup([32, 32, 1], &limits),
            &["1024 invocations", "and 256 in all"],
        );
    }
}
