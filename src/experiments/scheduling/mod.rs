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

/// Declares `$probe`, the compiled form of a two-order capped-spin probe over [`SpinKernel`]:
/// `$order`'s two entry points, records of type `$record` folded by `$fold` into a `$run`, for
/// experiment `$id` from shader `$file`, with `$flags` zeroed flags per invocation.
macro_rules! spin_probe {
    ($probe:ident, $order:ty, ($record:ty, $run:ty, $fold:path), ($id:literal, $file:expr, $flags:literal)) => {
        /// The compiled probe: one pipeline per order.
        pub struct $probe {
            kernel: SpinKernel,
        }

        impl $probe {
            /// Compiles both entry points for the device's grouping ([`Grouping::of`]).
            pub fn new(gpu: &GpuContext) -> Result<Self> {
                Self::with_grouping(gpu, Grouping::of(gpu))
            }

            /// Compiles both entry points for `grouping` (blocks run on any device).
            pub fn with_grouping(gpu: &GpuContext, grouping: Grouping) -> Result<Self> {
                let entries = <$order>::ALL.map(|o| o.entry_for(grouping));
                let kernel = SpinKernel::new(gpu, ($id, $file), entries, grouping)?;
                Ok(Self { kernel })
            }

            /// What the probe's records are per.
            pub fn grouping(&self) -> Grouping {
                self.kernel.grouping()
            }

            /// Runs one dispatch of `WORKGROUPS` workgroups with fresh (zero) flags, within the
            /// device's timeout, and folds what every subgroup (or block) did.
            pub fn run(&self, gpu: &GpuContext, order: $order, cap: u32) -> Result<$run> {
                let shape = (cap, WORKGROUP_SIZE, $flags);
                let (time_ns, flags, records) =
                    self.kernel.run::<$record>(gpu, order as usize, shape)?;
                Ok($fold(order, cap, time_ns, &flags, records))
            }
        }
    };
}

pub mod forward_progress;
pub mod handshake;
pub mod interleaving;
pub mod lockstep_race;
pub mod run_ahead;

use std::borrow::Cow;

use crate::experiments::{Experiment, Lab, Progress, RunConfig};
use crate::gpu::{Dispatch, GpuContext};
use std::collections::BTreeMap;

use crate::report::{ExperimentResult, LaneRecord, VerdictStatus};
pub use crate::shaders::scheduling::{BLOCK, SpinParams};

pub use forward_progress::ForwardProgress;
pub use handshake::Handshake;
pub use interleaving::Interleaving;
pub use lockstep_race::LockstepRace;
pub use run_ahead::RunAhead;

/// Workgroups per correctness dispatch: many subgroups on every device (512 of size 8 on
/// lavapipe, 128 of size 32 on NVIDIA), and a small dispatch even when every spin runs to its cap.
pub const WORKGROUPS: u32 = 32;

/// Every scheduling probe, in run order.
pub fn all() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(ForwardProgress),
        Box::new(Handshake),
        Box::new(LockstepRace),
        Box::new(Interleaving),
        Box::new(RunAhead),
    ]
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

/// How a two-order spin probe (forward_progress, handshake) ran: its cap, its runs per order,
/// its workgroup size, and which lanes take the then-branch with subgroups and with blocks.
pub(crate) struct SpinSetup {
    pub cap: u32,
    pub runs: u32,
    pub workgroup_size: u32,
    pub split: [String; 2],
}

impl SpinSetup {
    /// Runs both orders `runs` times (2 with `--quick`, else 8), alternating, so drift hits
    /// both alike. `run(order)` runs order 0 or 1 once.
    pub(crate) fn both_orders<R>(
        config: &RunConfig,
        progress: Progress<'_>,
        mut run: impl FnMut(usize) -> crate::Result<R>,
    ) -> crate::Result<(u32, [Vec<R>; 2])> {
        let runs = if config.quick { 2 } else { 8 };
        let mut by_order = [Vec::new(), Vec::new()];
        for r in 0..runs {
            for (order, runs) in by_order.iter_mut().enumerate() {
                runs.push(run(order)?);
            }
            progress(f64::from(r + 1) / f64::from(runs));
        }
        Ok((runs, by_order))
    }

    /// Records the setup as params.
    pub(crate) fn record(
        &self,
        lab: &Lab,
        grouping: Grouping,
        result: &mut ExperimentResult,
    ) -> crate::Result<()> {
        result.param("workgroup_size", self.workgroup_size);
        result.param("workgroups", WORKGROUPS);
        result.param("cap", self.cap);
        result.param("runs_per_order", self.runs);
        result.param("host_timeout_s", lab.gpu.timeout.as_secs_f64());
        let [with_subgroups, with_blocks] = &self.split;
        match grouping {
            Grouping::Subgroups => {
                result.param("split", with_subgroups.as_str());
                result.param("subgroup_size_probe", lab.subgroup()?.size);
            }
            Grouping::Blocks => result.param("split", with_blocks.as_str()),
        }
        grouping.record(result);
        Ok(())
    }
}

/// The verdict both spin probes hold first: every capped spin ended on its own, so every
/// invocation wrote its record, however the other side behaved.
pub(crate) fn finished_verdict(
    result: &mut ExperimentResult,
    check: &str,
    (dispatches, unrecorded): (usize, usize),
    times_ns: impl Iterator<Item = f64>,
) {
    let slowest_ms = times_ns.fold(0.0_f64, f64::max) / 1e6;
    result.verdict(
        "finished",
        check,
        VerdictStatus::held_if(unrecorded == 0),
        format!(
            "{dispatches} dispatches finished, slowest {slowest_ms:.2} ms; {unrecorded} \
             invocations left no record"
        ),
    );
}

/// One lane of a spin probe as the lane grid shows it: its subgroup (or block) slot, its lane,
/// `local_invocation_index`, in-branch ballot and value.
pub(crate) type SpinCell = (u32, u32, u32, [u32; 4], u32);

/// Per order (`point` 0 and 1), the first workgroup of the order's first run: one lane record
/// per subgroup, lanes in order. `cell` reads a record, `None` where the lane wrote none.
pub(crate) fn spin_lane_records<R>(
    first_runs: [Option<&[R]>; 2],
    workgroup_size: u32,
    cell: impl Fn(&R) -> Option<SpinCell>,
) -> Vec<LaneRecord> {
    let mut out = Vec::new();
    for (point, records) in (0u32..).zip(first_runs) {
        let Some(records) = records else { continue };
        let mut groups: BTreeMap<u32, Vec<SpinCell>> = BTreeMap::new();
        for c in records
            .iter()
            .filter_map(&cell)
            .filter(|c| c.0 < workgroup_size)
        {
            groups.entry(c.0).or_default().push(c);
        }
        for (subgroup, mut lanes) in (0u32..).zip(groups.into_values()) {
            lanes.sort_by_key(|c| c.1);
            out.push(LaneRecord {
                point,
                subgroup,
                local_index: lanes.iter().map(|c| c.2).collect(),
                ballot: lanes.iter().map(|c| c.3).collect(),
                value: lanes.iter().map(|c| c.4).collect(),
            });
        }
    }
    out
}

/// `part/whole`, 0 for an empty whole.
fn fraction(part: usize, whole: usize) -> f64 {
    part as f64 / whole.max(1) as f64
}

/// The two entry points (one per order) of a capped-spin kernel, compiled for one grouping, and
/// the dispatch both spin probes share: [`SpinParams`] at binding 0, zeroed `u32` flags at 1,
/// one record per invocation at 2, `WORKGROUPS` workgroups, timed, within the device's timeout.
pub(crate) struct SpinKernel {
    name: &'static str,
    pipelines: [wgpu::ComputePipeline; 2],
    grouping: Grouping,
    timer: crate::gpu::GpuTimer,
}

impl SpinKernel {
    /// Compiles `entries` (order 0, order 1) of `file` for `grouping`, for experiment `id`. The
    /// spins are bounded by `cap` on their own; wgpu's injected guards stay on because nothing
    /// here is timed against a model.
    pub(crate) fn new(
        gpu: &GpuContext,
        (id, file): (&str, &'static crate::shaders::ShaderFile),
        entries: [&'static str; 2],
        grouping: Grouping,
    ) -> crate::Result<Self> {
        if grouping == Grouping::Subgroups {
            gpu.require_subgroups(id)?;
        }
        let prepared = grouping.source(file.source);
        let pipeline = |entry| {
            crate::gpu::Kernel::of(file, entry, crate::gpu::RuntimeChecks::Checked).pipeline(
                gpu,
                &prepared,
                &[],
            )
        };
        Ok(Self {
            name: file.name,
            pipelines: [pipeline(entries[0])?, pipeline(entries[1])?],
            grouping,
            timer: crate::gpu::GpuTimer::new(gpu),
        })
    }

    /// What the records are per.
    pub(crate) fn grouping(&self) -> Grouping {
        self.grouping
    }

    /// Runs entry `order` once with fresh flags (`flags_per_invocation` each) and returns the
    /// dispatch time in ns, the flags and every invocation's record.
    pub(crate) fn run<R: bytemuck::Pod>(
        &self,
        gpu: &GpuContext,
        order: usize,
        (cap, workgroup_size, flags_per_invocation): (u32, u32, u64),
    ) -> crate::Result<(f64, Vec<u32>, Vec<R>)> {
        use crate::gpu::{read_buffer, read_only_buffer, storage_buffer};
        let pipeline = &self.pipelines[order];
        let invocations = u64::from(WORKGROUPS * workgroup_size);
        let label = format!("divlab.{}", self.name);
        let params = read_only_buffer(
            gpu,
            &format!("{label}.params"),
            &SpinParams { cap, pad: [0; 3] },
        );
        let flags = storage_buffer(
            gpu,
            &format!("{label}.flags"),
            invocations * flags_per_invocation * 4,
        );
        let records = storage_buffer(
            gpu,
            &format!("{label}.records"),
            invocations * size_of::<R>() as u64,
        );
        let dispatch = Dispatch::new(
            gpu,
            &label,
            pipeline,
            &[&params, &flags, &records],
            WORKGROUPS,
        );
        let time_ns = self.timer.time(gpu, &label, &[dispatch])?;
        let flag_values = read_buffer(gpu, &label, &flags)?;
        let records = read_buffer(gpu, &label, &records)?;
        Ok((time_ns, flag_values, records))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::prepare_for_naga;

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
