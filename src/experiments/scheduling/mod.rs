//! `scheduling.*`: independent thread scheduling (seeds 000, 001). Since lanes got their own
//! program counters, diverged lanes may interleave, code that assumes lockstep is a data race that
//! can still look correct, a spin on a flag set by another lane of the same subgroup ends only
//! where the hardware gives forward progress, and the short side of an unbalanced branch may run
//! ahead of the join; a handshake between the two sides of a branch completes only where diverged
//! paths interleave. One probe each, safe on any GPU: every loop in every kernel is bounded.
//!
//! Where the adapter has no subgroups (wgpu's GL backend, older GPUs), each probe runs its
//! `_no_sg` entry points instead ([`Grouping::Blocks`]): the same kernel, with aligned blocks of
//! [`BLOCK`] consecutive local invocations standing for subgroups, atomics and
//! `local_invocation_index` instead of ballots and subgroup builtins. [`BLOCK_ASSUMPTION`] says
//! why a block stands for a subgroup.

pub mod forward_progress;
pub mod handshake;
pub mod interleaving;
pub mod lockstep_race;
pub mod run_ahead;
pub mod two_order;

use std::borrow::Cow;

use crate::experiments::Experiment;
use crate::gpu::GpuContext;

use crate::report::{ExperimentResult, Family};
pub use crate::shaders::scheduling::{BLOCK, SpinParams, WORKGROUP_SIZE};

pub use forward_progress::ForwardProgress;
pub use handshake::Handshake;
pub use interleaving::Interleaving;
pub use lockstep_race::LockstepRace;
pub use run_ahead::RunAhead;

/// Workgroups per correctness dispatch: many subgroups on every device (512 of size 8 on
/// lavapipe, 128 of size 32 on NVIDIA), and a small dispatch even when every spin runs to its cap.
pub const WORKGROUPS: u32 = 32;

/// Every scheduling probe, in run order: the `scheduling.` part of the registry.
pub fn all() -> Vec<Box<dyn Experiment>> {
    crate::experiments::registry()
        .into_iter()
        .filter(|e| e.info().family == Family::Scheduling)
        .collect()
}

/// Why a block can stand for a subgroup, for verdicts and params.
pub const BLOCK_ASSUMPTION: &str = "subgroups are runs of consecutive local invocation indices \
     from 0 (subgroup k holds k*SG..k*SG+SG-1), as on every device seen so far, so an aligned \
     block of 4 lies in one subgroup whatever its width (WGSL's sizes are powers of two, at \
     least 4)";

/// Opens a region of a scheduling shader that uses subgroups; see [`without_subgroups`].
pub const SUBGROUPS_BEGIN: &str = "// BEGIN SUBGROUPS ONLY";
/// Closes a region opened by [`SUBGROUPS_BEGIN`].
pub const SUBGROUPS_END: &str = "// END SUBGROUPS ONLY";

/// The shader source a device without subgroups can load: the lines from [`SUBGROUPS_BEGIN`]
/// to [`SUBGROUPS_END`] become blank, so error lines still match the file.
///
/// A text transform, not a second file per kernel, because wgpu validates the whole module
/// against the device's features: one subgroup builtin anywhere, even in an entry point never
/// used, fails the module on such a device. The regions keep each kernel's records, spins and
/// caps written once, shared by both groupings; `enable subgroups;` sits in a region too.
pub fn without_subgroups(source: &str) -> String {
    let mut inside = false;
    let lines: Vec<&str> = source
        .lines()
        .map(|line| {
            let trimmed = line.trim_start();
            if trimmed.starts_with(SUBGROUPS_BEGIN) {
                inside = true;
                ""
            } else if trimmed.starts_with(SUBGROUPS_END) {
                inside = false;
                ""
            } else if inside {
                ""
            } else {
                line
            }
        })
        .collect();
    lines.join("\n")
}

/// What a scheduling probe treats as one group of lanes, and how it records them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouping {
    /// Subgroups, named and recorded with subgroup builtins and ballots.
    Subgroups,
    /// Aligned blocks of [`BLOCK`] consecutive local invocations, with atomics and
    /// `local_invocation_index` only: the `_no_sg` entry points, for adapters without subgroups.
    Blocks,
}

impl Grouping {
    /// Subgroups where the device has them, else blocks.
    pub fn of(gpu: &GpuContext) -> Self {
        if gpu.caps.subgroups {
            Self::Subgroups
        } else {
            Self::Blocks
        }
    }

    /// The source to compile: the file itself, or [`without_subgroups`] of it.
    pub fn source(self, file: &'static str) -> Cow<'static, str> {
        match self {
            Self::Subgroups => Cow::Borrowed(file),
            Self::Blocks => Cow::Owned(without_subgroups(file)),
        }
    }

    /// The entry point: `subgroups` with subgroups, `blocks` (its `_no_sg` twin) without.
    pub fn pick(self, subgroups: &'static str, blocks: &'static str) -> &'static str {
        match self {
            Self::Subgroups => subgroups,
            Self::Blocks => blocks,
        }
    }

    /// What one group is called in verdicts and param names.
    pub fn unit(self) -> &'static str {
        match self {
            Self::Subgroups => "subgroup",
            Self::Blocks => "block",
        }
    }

    /// The plural of [`Self::unit`], also in metric names.
    pub fn units(self) -> &'static str {
        match self {
            Self::Subgroups => "subgroups",
            Self::Blocks => "blocks",
        }
    }

    /// Appended to the detail of every observation that depends on the grouping: nothing with
    /// subgroups; without, what a block is and why it stands for a subgroup.
    pub fn note(self) -> String {
        match self {
            Self::Subgroups => String::new(),
            Self::Blocks => format!(
                " [no subgroups on this adapter: recorded per aligned block of {BLOCK} \
                 consecutive local invocations, assumed to lie in one subgroup, as subgroups are \
                 runs of consecutive local indices on every device seen so far]"
            ),
        }
    }

    /// Records a block grouping in the result's params (nothing with subgroups, so those results
    /// stay as they were).
    pub fn record(self, result: &mut ExperimentResult) {
        match self {
            Self::Subgroups => {}
            Self::Blocks => {
                result.param(
                    "grouping",
                    format!("blocks of {BLOCK} consecutive local invocations (no subgroups)"),
                );
                result.param("block", BLOCK);
                result.param("assumption", BLOCK_ASSUMPTION);
            }
        }
    }
}

/// `part/whole`, 0 for an empty whole.
fn fraction(part: usize, whole: usize) -> f64 {
    part as f64 / whole.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::prepare_for_naga;
    use two_order::ProbeOrder;

    /// Every scheduling shader and the `_no_sg` entry points the host asks for.
    fn shaders() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
        let blocks = Grouping::Blocks;
        vec![
            (
                "scheduling_forward_progress",
                crate::shaders::SCHEDULING_FORWARD_PROGRESS.source,
                forward_progress::SpinOrder::ALL
                    .map(|o| o.entry_for(blocks))
                    .to_vec(),
            ),
            (
                "scheduling_handshake",
                crate::shaders::SCHEDULING_HANDSHAKE.source,
                handshake::HandshakeOrder::ALL
                    .map(|o| o.entry_for(blocks))
                    .to_vec(),
            ),
            (
                "scheduling_lockstep_race",
                crate::shaders::SCHEDULING_LOCKSTEP_RACE.source,
                lockstep_race::Variant::ALL
                    .iter()
                    .filter_map(|v| v.entry_for(blocks))
                    .collect(),
            ),
            (
                "scheduling_interleaving",
                interleaving::KERNEL.source,
                vec![interleaving::kernel(blocks).entry],
            ),
            (
                "scheduling_run_ahead",
                run_ahead::KERNEL.source,
                vec![run_ahead::kernel(blocks).entry],
            ),
        ]
    }

    /// Parses `source` as wgpu would and validates it with or without subgroup capabilities.
    fn validate(source: &str, subgroups: bool) -> Result<naga::Module, String> {
        let module =
            naga::front::wgsl::parse_str(&prepare_for_naga(source)).map_err(|e| e.to_string())?;
        let mut caps = naga::valid::Capabilities::all();
        if !subgroups {
            caps -= naga::valid::Capabilities::SUBGROUP
                | naga::valid::Capabilities::SUBGROUP_BARRIER
                | naga::valid::Capabilities::SUBGROUP_VERTEX_STAGE;
        }
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
            .validate(&module)
            .map_err(|e| format!("{:?}", e.into_inner()))?;
        Ok(module)
    }

    #[test]
    fn regions_become_blank_lines() {
        let src = "a\n// BEGIN SUBGROUPS ONLY\nenable subgroups;\n  // END SUBGROUPS ONLY\nb";
        assert_eq!(without_subgroups(src), "a\n\n\n\nb");
        assert_eq!(Grouping::Blocks.source(src), "a\n\n\n\nb");
        assert_eq!(Grouping::Subgroups.source(src), src);
    }

    /// The premise and the fix: a module with subgroups anywhere fails without the capability;
    /// the blanked source validates without it, has no `enable subgroups;`, keeps its line
    /// count, and holds exactly the `_no_sg` entry points the host asks for.
    #[test]
    fn every_scheduling_shader_loads_without_subgroups() {
        for (name, source, entries) in shaders() {
            assert_eq!(
                source.matches(SUBGROUPS_BEGIN).count(),
                source.matches(SUBGROUPS_END).count(),
                "{name}: unbalanced regions"
            );
            validate(source, true).unwrap_or_else(|e| panic!("{name} with subgroups: {e}"));
            assert!(
                validate(source, false).is_err(),
                "{name}: the whole file should need subgroups"
            );
            let blanked = without_subgroups(source);
            assert_eq!(blanked.lines().count(), source.lines().count(), "{name}");
            assert!(!blanked.contains("enable subgroups"), "{name}");
            let module = validate(&blanked, false)
                .unwrap_or_else(|e| panic!("{name} without subgroups: {e}"));
            let mut found: Vec<&str> = module.entry_points.iter().map(|e| &*e.name).collect();
            found.sort_unstable();
            let mut wanted = entries.clone();
            wanted.sort_unstable();
            assert_eq!(found, wanted, "{name}");
            assert!(wanted.iter().all(|e| e.ends_with("_no_sg")), "{name}");
        }
    }
}
