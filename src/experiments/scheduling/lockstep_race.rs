//! `scheduling.lockstep_race`: seed 000's warp-synchronous tree reduction through workgroup
//! memory, with no barrier between the steps, run many times beside the same reduction with
//! barriers and with `subgroupAdd`. The racy forms are data races in WGSL: whatever they give is
//! recorded, never failed; the other two must be right every time.
//!
//! Without subgroups the three workgroup-memory forms run per aligned block of
//! [`BLOCK`](super::BLOCK) consecutive local invocations ([`Grouping::Blocks`]); `subgroupAdd`
//! has no such form and is skipped.

use std::collections::BTreeMap;

use crate::Result;
use crate::experiments::scheduling::{Grouping, WORKGROUP_SIZE, WORKGROUPS};
use crate::experiments::{Progress, RunContext};
use crate::gpu::{
    Dispatch, GpuContext, Kernel, RuntimeChecks, read_buffer, read_only_buffer, storage_buffer,
};
use crate::report::{ExperimentInfo, ExperimentResult, Family, VerdictStatus};
use crate::shaders;
pub use crate::shaders::scheduling::lockstep_race::{RaceParams, RaceRecord};

const SOURCE: &str = shaders::SCHEDULING_LOCKSTEP_RACE.source;

/// `racy_skewed`: lane l delays `(l % 4) * SKEW` hash iterations before the reduction.
pub const SKEW: u32 = 64;
/// Seeds the per-run input seeds, so runs repeat.
pub const SEED: u64 = 0x5eed_0000;

const INVOCATIONS: u32 = WORKGROUPS * WORKGROUP_SIZE;

/// The reduction variants. Keep in sync with the shader's entry points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// No barrier between the steps: correct only under lockstep.
    Racy,
    /// No barrier, after a per-lane delay loop.
    RacySkewed,
    /// `workgroupBarrier()` after every step.
    WithBarriers,
    /// `subgroupAdd`.
    SubgroupAdd,
}

impl Variant {
    /// Every variant, in dispatch order.
    pub const ALL: [Self; 4] = [
        Self::Racy,
        Self::RacySkewed,
        Self::WithBarriers,
        Self::SubgroupAdd,
    ];

    /// The entry point with subgroups, also the name in metrics.
    pub fn entry(self) -> &'static str {
        match self {
            Self::Racy => "racy",
            Self::RacySkewed => "racy_skewed",
            Self::WithBarriers => "with_barriers",
            Self::SubgroupAdd => "subgroup_add",
        }
    }

    /// The entry point for `grouping`; `None` for `subgroupAdd` without subgroups.
    pub fn entry_for(self, grouping: Grouping) -> Option<&'static str> {
        match (self, grouping) {
            (_, Grouping::Subgroups) => Some(self.entry()),
            (Self::Racy, Grouping::Blocks) => Some("racy_no_sg"),
            (Self::RacySkewed, Grouping::Blocks) => Some("racy_skewed_no_sg"),
            (Self::WithBarriers, Grouping::Blocks) => Some("with_barriers_no_sg"),
            (Self::SubgroupAdd, Grouping::Blocks) => None,
        }
    }

    /// The variants that run with `grouping`, in dispatch order.
    pub fn running(grouping: Grouping) -> Vec<Self> {
        Self::ALL
            .into_iter()
            .filter(|v| v.entry_for(grouping).is_some())
            .collect()
    }

    /// Whether WGSL guarantees the right total.
    pub fn guaranteed(self) -> bool {
        matches!(self, Self::WithBarriers | Self::SubgroupAdd)
    }

    /// The verdict's check.
    pub fn check(self) -> &'static str {
        match self {
            Self::Racy => {
                "tree reduction through workgroup memory, no barriers (warp-synchronous idiom; \
                 a data race, not guaranteed)"
            }
            Self::RacySkewed => {
                "the same after a per-lane delay loop (lanes arrive at different times; a data \
                 race, not guaranteed)"
            }
            Self::WithBarriers => {
                "the same tree with workgroupBarrier() between the steps is right"
            }
            Self::SubgroupAdd => "subgroupAdd is right",
        }
    }
}

/// One variant's totals over all runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Dispatches.
    pub runs: usize,
    /// Dispatches with at least one wrong total.
    pub wrong_runs: usize,
    /// Subgroup (or block) reductions checked.
    pub subgroups: usize,
    /// Subgroups (or blocks) in which some lane read a wrong total.
    pub wrong_subgroups: usize,
    /// Lanes that read a wrong total.
    pub wrong_lanes: usize,
    /// Subgroups whose block did not fit in workgroup memory (partial subgroups); not checked.
    pub skipped: usize,
    /// Invocations that left no record.
    pub unrecorded: usize,
    /// The first wrong total, for the verdict.
    pub example: Option<String>,
}

impl Tally {
    /// Adds one run's records (`WORKGROUPS * WORKGROUP_SIZE` of them), grouped by `grouping`.
    pub fn add_run(&mut self, run: usize, records: &[RaceRecord], grouping: Grouping) {
        self.runs += 1;
        let mut groups: BTreeMap<(usize, u32), Vec<&RaceRecord>> = BTreeMap::new();
        for (i, r) in records.iter().enumerate() {
            if r.size == 0 {
                self.unrecorded += 1;
            } else {
                groups
                    .entry((i / WORKGROUP_SIZE as usize, r.slot))
                    .or_default()
                    .push(r);
            }
        }
        let mut wrong_here = 0;
        for ((workgroup, slot), lanes) in groups {
            if lanes.iter().any(|r| r.valid == 0) {
                self.skipped += 1;
                continue;
            }
            self.subgroups += 1;
            let expected = lanes.iter().fold(0u32, |s, r| s.wrapping_add(r.input));
            let wrong: Vec<&&RaceRecord> = lanes.iter().filter(|r| r.total != expected).collect();
            if let Some(first) = wrong.first() {
                wrong_here += 1;
                self.wrong_lanes += wrong.len();
                self.example.get_or_insert_with(|| {
                    format!(
                        "e.g. run {run}, workgroup {workgroup}, {} slot {slot}: lane {} read {}, \
                         the sum of the {} inputs is {expected}",
                        grouping.unit(),
                        first.lane,
                        first.total,
                        lanes.len()
                    )
                });
            }
        }
        self.wrong_subgroups += wrong_here;
        self.wrong_runs += usize::from(wrong_here > 0);
    }

    /// "wrong in X of Y runs (...)" or "appeared correct in all Y runs (...)".
    pub fn observation(&self, guaranteed: bool, grouping: Grouping) -> String {
        let unit = grouping.unit();
        let counts = format!(
            "{} of {} {unit} totals, {} lanes",
            self.wrong_subgroups, self.subgroups, self.wrong_lanes
        );
        let mut text = if self.wrong_runs > 0 {
            format!(
                "wrong in {} of {} runs ({counts})",
                self.wrong_runs, self.runs
            )
        } else if guaranteed {
            format!(
                "correct in all {} runs ({} {unit} totals)",
                self.runs, self.subgroups
            )
        } else {
            format!(
                "appeared correct in all {} runs ({} {unit} totals) — not guaranteed",
                self.runs, self.subgroups
            )
        };
        if let Some(example) = &self.example {
            text.push_str("; ");
            text.push_str(example);
        }
        if self.skipped > 0 {
            text.push_str(&format!(
                "; {} partial {} skipped",
                self.skipped,
                grouping.units()
            ));
        }
        text
    }
}

/// The `scheduling.lockstep_race` experiment.
pub struct LockstepRace;

fn run(ctx: RunContext<'_>) -> Result<ExperimentResult> {
    let (lab, config, progress) = ctx.parts();
    let gpu = &lab.gpu;
    let grouping = Grouping::of(gpu);
    let variants = Variant::running(grouping);
    let runs = if config.quick { 16 } else { 64 };
    let tallies = run_variants(gpu, grouping, runs, progress)?;
    let mut result = INFO.new_result();
    result.param("workgroup_size", WORKGROUP_SIZE);
    result.param("workgroups", WORKGROUPS);
    result.param("runs", runs);
    result.param("skew", SKEW);
    result.param("seed", SEED);
    result.param(
        "variants",
        variants.iter().map(|v| v.entry()).collect::<Vec<_>>(),
    );
    let skipped = match grouping {
        Grouping::Subgroups => {
            result.param("subgroup_size_probe", lab.subgroup()?.size);
            String::new()
        }
        Grouping::Blocks => {
            result.param("skipped_variants", vec![Variant::SubgroupAdd.entry()]);
            "; subgroup_add not run: the adapter has no subgroups".to_owned()
        }
    };
    grouping.record(&mut result);
    let unrecorded: usize = tallies.iter().map(|t| t.unrecorded).sum();
    result.verdict(
        "recorded",
        "every invocation of every variant recorded a total",
        VerdictStatus::held_if(unrecorded == 0),
        format!("{unrecorded} invocations left no record{skipped}"),
    );
    let units = grouping.units();
    for (variant, tally) in variants.iter().zip(&tallies) {
        let status = if variant.guaranteed() {
            VerdictStatus::held_if(tally.wrong_runs == 0 && tally.subgroups > 0)
        } else {
            VerdictStatus::NotGuaranteed
        };
        // The racy forms' outcome depends on what a block stands for; a correct form's not.
        let note = if variant.guaranteed() {
            String::new()
        } else {
            grouping.note()
        };
        result.verdict(
            variant.entry(),
            variant.check(),
            status,
            format!(
                "{}{note}",
                tally.observation(variant.guaranteed(), grouping)
            ),
        );
        let name = variant.entry();
        result.metric(&format!("{name}_runs"), tally.runs as f64);
        result.metric(&format!("{name}_wrong_runs"), tally.wrong_runs as f64);
        result.metric(&format!("{name}_{units}"), tally.subgroups as f64);
        result.metric(
            &format!("{name}_wrong_{units}"),
            tally.wrong_subgroups as f64,
        );
    }
    Ok(result)
}

/// Runs every variant of `grouping` `runs` times, one submission per run with one dispatch per
/// variant, and checks every subgroup's (or block's) total.
fn run_variants(
    gpu: &GpuContext,
    grouping: Grouping,
    runs: u32,
    progress: Progress<'_>,
) -> Result<Vec<Tally>> {
    let label = "divlab.scheduling_lockstep_race";
    let source = grouping.source(SOURCE);
    let pipelines = Variant::ALL
        .iter()
        .filter_map(|v| v.entry_for(grouping))
        .map(|entry| {
            Kernel::of(
                &shaders::SCHEDULING_LOCKSTEP_RACE,
                entry,
                RuntimeChecks::Checked,
            )
            .pipeline(gpu, &source, &[])
        })
        .collect::<Result<Vec<_>>>()?;
    let bytes = u64::from(runs * INVOCATIONS) * size_of::<RaceRecord>() as u64;
    let records: Vec<wgpu::Buffer> = pipelines
        .iter()
        .map(|_| storage_buffer(gpu, "divlab.scheduling_lockstep_race.records", bytes))
        .collect();
    let mut rng = fastrand::Rng::with_seed(SEED);
    for run in 0..runs {
        let params = RaceParams {
            seed: rng.u32(..),
            skew: SKEW,
            run,
            pad: 0,
        };
        let params = read_only_buffer(gpu, "divlab.scheduling_lockstep_race.params", &params);
        let dispatches: Vec<Dispatch> = pipelines
            .iter()
            .zip(&records)
            .map(|(p, r)| Dispatch::new(gpu, label, p, &[&params, r], WORKGROUPS))
            .collect();
        gpu.run_batch(label, &dispatches)?;
        progress(0.9 * f64::from(run + 1) / f64::from(runs));
    }
    let mut tallies = Vec::new();
    for buffer in &records {
        let all: Vec<RaceRecord> = read_buffer(gpu, label, buffer)?;
        let mut tally = Tally::default();
        for (run, block) in all.chunks(INVOCATIONS as usize).enumerate() {
            tally.add_run(run, block, grouping);
        }
        tallies.push(tally);
    }
    progress(1.0);
    Ok(tallies)
}

/// What `scheduling.lockstep_race` declares.
pub const INFO: ExperimentInfo = ExperimentInfo {
    id: "scheduling.lockstep_race",
    family: Family::Scheduling,
    title: "Scheduling: a warp-synchronous reduction without barriers",
    rule: "Lanes of a subgroup are not guaranteed to run in lockstep: a tree reduction \
           through workgroup memory with no barrier between its steps is a data race \
           that may still look correct; with barriers, or with subgroupAdd, it is right",
    source: "“Independent Thread Scheduling” (what broke: warpReduceOld); “Per-Lane Program Counters and Independent Thread Scheduling”; WGSL memory model (data races)",
    shaders: &[&shaders::SCHEDULING_LOCKSTEP_RACE],
    figures: &[],
    fit: None,
};

declare_experiment!(LockstepRace, INFO, run);

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(slot: u32, lane: u32, input: u32, total: u32) -> RaceRecord {
        RaceRecord {
            slot,
            lane,
            size: 2,
            input,
            total,
            local_index: 0,
            valid: 1,
            pad: 0,
        }
    }

    #[test]
    fn a_wrong_lane_marks_its_subgroup_and_run() {
        let mut tally = Tally::default();
        // Two blocks of two lanes: inputs 3 + 4 and 1 + 2, and the totals each lane recorded.
        let run = |first_total: u32| {
            [
                lane(0, 0, 3, 7),
                lane(0, 1, 4, first_total),
                lane(1, 0, 1, 3),
                lane(1, 1, 2, 3),
            ]
        };
        tally.add_run(0, &run(7), Grouping::Blocks);
        assert_eq!((tally.subgroups, tally.wrong_runs), (2, 0));
        assert!(
            tally
                .observation(false, Grouping::Blocks)
                .starts_with("appeared correct in all 1 runs (2 block totals)")
        );
        tally.add_run(1, &run(4), Grouping::Blocks);
        assert_eq!(
            (tally.wrong_runs, tally.wrong_subgroups, tally.wrong_lanes),
            (1, 1, 1)
        );
        let text = tally.observation(false, Grouping::Blocks);
        assert!(
            text.starts_with("wrong in 1 of 2 runs (1 of 4 block totals"),
            "{text}"
        );
        assert!(text.contains("block slot 0: lane 1 read 4"), "{text}");
    }

    #[test]
    fn an_unwritten_record_is_counted_not_checked() {
        let mut tally = Tally::default();
        let blank = RaceRecord {
            size: 0,
            ..lane(0, 0, 0, 0)
        };
        tally.add_run(0, &[lane(0, 0, 3, 3), blank], Grouping::Subgroups);
        assert_eq!(
            (tally.unrecorded, tally.subgroups, tally.wrong_runs),
            (1, 1, 0)
        );
    }
}
