//! Everything that can be checked before the device runs anything: the parse, the overrides,
//! the interface, the counters' bind group and the instrumented module.

use crate::gpu::{GpuContext, LLVMPIPE_LOOP_ITERATIONS};
use crate::profile::Error as ProfileError;
use crate::profile::instrument::{self, InstrumentOptions, Instrumented};
use crate::profile::kernel::{self, KernelInterface};
use crate::profile::report::{self, OBSERVER_NOTE};
use crate::shaders::{check_wgsl, prepare_for_naga};
use crate::{Error, Result};

use super::Request;

/// Loop iterations kept free under llvmpipe's limit for those an invocation still runs after
/// crossing the cap: divlab's own rounds after each enclosing loop it counts after its end.
const LLVMPIPE_CAP_ROOM: u32 = 1024;

/// A kernel prepared for profiling: its interface, its instrumented form and its buffers.
pub struct Prepared {
    /// The entry point, workgroup size and bindings.
    pub interface: KernelInterface,
    /// The instrumented kernel.
    pub instrumented: Instrumented,
    /// The loop cap in force (lowered on llvmpipe, where a cap near
    /// [`LLVMPIPE_LOOP_ITERATIONS`] would not fire before llvmpipe's own silent limit).
    pub loop_cap: u32,
    /// Remarks for the report.
    pub notes: Vec<String>,
}

/// Parses, resolves overrides, reads the interface and instruments: everything that can be
/// checked before the device runs anything.
pub fn prepare(gpu: &GpuContext, request: &Request) -> Result<Prepared> {
    check_dispatch(
        request.dispatch,
        gpu.device.limits().max_compute_workgroups_per_dimension,
    )?;
    let module = check_wgsl(&request.file, &request.source)?;
    let module = kernel::apply_overrides(&module, &request.overrides)?;
    let prepared = prepare_for_naga(&request.source);
    let interface = kernel::interface(&module, &prepared, &request.file, request.entry.as_deref())?;
    // The lowest group the entry point leaves free, whose slots 0 and 1 (the counters and the
    // lane records) no other entry point's variable holds either.
    let used: Vec<u32> = interface.groups().collect();
    let taken = |g: u32| {
        module.global_variables.iter().any(|(_, v)| {
            v.binding
                .as_ref()
                .is_some_and(|b| b.group == g && b.binding <= 1)
        })
    };
    let counters_group = (0..)
        .find(|&g| !used.contains(&g) && !taken(g))
        .unwrap_or(u32::MAX);
    let max_groups = gpu.device.limits().max_bind_groups;
    if counters_group >= max_groups {
        return Err(ProfileError::NoCountersGroup {
            highest: used.iter().copied().max().unwrap_or(0),
            available: max_groups,
        }
        .into());
    }
    let mut notes = vec![if gpu.caps.subgroups {
        OBSERVER_NOTE.to_owned()
    } else {
        "the counters are private increments added atomically where an invocation leaves the \
         kernel; a compiler may schedule the kernel differently around them, so the profile is \
         of the instrumented kernel"
            .to_owned()
    }];
    let mut loop_cap = request.loop_cap.max(1);
    // The cap counts every loop iteration of an invocation, divlab's own after a loop included,
    // as llvmpipe does; once it is crossed, each enclosing counted loop still runs its own
    // rounds (at most 130) on the way out: leave room for them under llvmpipe's limit.
    let llvmpipe_cap = LLVMPIPE_LOOP_ITERATIONS - 1 - LLVMPIPE_CAP_ROOM;
    let mut llvmpipe_note = None;
    if gpu.is_llvmpipe() && loop_cap > llvmpipe_cap {
        loop_cap = llvmpipe_cap;
        llvmpipe_note = Some(format!(
            "llvmpipe ends every loop of an invocation after {LLVMPIPE_LOOP_ITERATIONS} iterations in \
             total, silently, so the loop cap is lowered to {loop_cap} here"
        ));
    }
    let mut options = InstrumentOptions {
        subgroups: gpu.caps.subgroups,
        loop_cap,
        counters_group,
        lanes_block: None,
        invocations: request
            .dispatch
            .iter()
            .chain(&interface.workgroup_size)
            .map(|&n| u64::from(n))
            .product(),
        ballot_words: match gpu.info.subgroup_max_size {
            1..=128 => gpu.info.subgroup_max_size.div_ceil(32),
            _ => 4,
        },
    };
    let mut instrumented = instrument::instrument(&module, &prepared, &interface.entry, &options)?;
    if let Some(line) = request.lanes_line {
        if !gpu.caps.subgroups {
            return Err(Error::Unsupported {
                what: format!("--lanes {line}"),
                feature: "subgroup operations (a ballot per subgroup)".to_owned(),
            });
        }
        // The blocks are numbered the same on the second pass: record at the line's owner.
        let lines = crate::source_map::SourceMap::new(&request.source).line_count();
        if line == 0 || line as usize > lines {
            return Err(ProfileError::BadLanes {
                line,
                why: format!(
                    "{} has lines 1 to {lines}; name a line with a statement",
                    request.file
                ),
            }
            .into());
        }
        let block =
            report::line_owner(&instrumented, line).ok_or_else(|| ProfileError::BadLanes {
                line,
                why: format!(
                    "{}:{line} has no code the entry point `{}` runs (a comment, a declaration, \
                     or a function it never calls); name a line with a statement",
                    request.file, interface.entry
                ),
            })?;
        options.lanes_block = Some(block);
        instrumented = instrument::instrument(&module, &prepared, &interface.entry, &options)?;
    }
    // Said only where it matters: a kernel without loops never meets llvmpipe's limit.
    notes.extend(llvmpipe_note.filter(|_| !instrumented.loops.is_empty()));
    if !gpu.caps.subgroups {
        notes.push(
            "this adapter has no subgroup operations: executions count invocations, and \
             efficiency and divergence are not measured"
                .to_owned(),
        );
    }
    Ok(Prepared {
        interface,
        instrumented,
        loop_cap,
        notes,
    })
}

/// The most workgroups one profile dispatches: drivers count a dispatch's workgroups in 32 bits
/// (lavapipe wraps 2³² to 0 and runs nothing, silently).
pub const MAX_WORKGROUPS: u64 = u32::MAX as u64;

/// Refuses a dispatch the adapter takes only in part: a dimension over `per_dimension`, or
/// [`MAX_WORKGROUPS`] exceeded in all.
fn check_dispatch(dispatch: [u32; 3], per_dimension: u32) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatches_past_32_bits_or_a_dimension_are_refused() {
        assert!(check_dispatch([65535, 65535, 1], 65535).is_ok());
        let all = check_dispatch([4096, 4096, 256], 65535)
            .unwrap_err()
            .to_string();
        assert!(
            all.contains("4294967296 workgroups, and the most divlab profiles"),
            "{all}"
        );
        let one = check_dispatch([70000, 1, 1], 65535)
            .unwrap_err()
            .to_string();
        assert!(one.contains("70000 workgroups along x"), "{one}");
        assert!(
            one.contains("`max_compute_workgroups_per_dimension` is 65535"),
            "{one}"
        );
    }
}
