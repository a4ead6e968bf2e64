//! `convergence.*`: which invocations each GPU actually runs together at record points in if,
//! switch, loop, early-return, call and elect scenarios, labelled against the rules (seed 003,
//! WGSL) through the model in `src/model/convergence/mod.rs`.

use std::collections::BTreeMap;

use crate::Result;
use crate::experiments::{Experiment, RunContext};
use crate::gpu::{Kernel, RuntimeChecks, read_buffer, storage_buffer};
use crate::model::convergence::{
    Assessment, Guarantee, LaneObservation, Observed, Place, PointTally, Scenario,
    SubgroupObservation, assess,
};
use crate::report::{ExperimentInfo, ExperimentResult, Family, LaneRecord, VerdictStatus};
use crate::shaders;
pub use crate::shaders::convergence::{ConvergenceRecord, WORKGROUP_SIZE};

const SOURCE: &str = shaders::CONVERGENCE.source;

/// How many failures of one kind a verdict quotes.
const QUOTED: usize = 3;

/// One scenario as an experiment.
pub struct Convergence {
    pub scenario: Scenario,
}

impl Convergence {
    /// Every scenario, in run order.
    pub fn all() -> Vec<Self> {
        Scenario::ALL.map(|scenario| Self { scenario }).into()
    }
}

impl Experiment for Convergence {
    fn info(&self) -> ExperimentInfo {
        let (id, title) = match self.scenario {
            Scenario::IfElse => (
                "convergence.if_else",
                "Convergence: if/else with subgroupMin/Max per branch",
            ),
            Scenario::IfNoElse => ("convergence.if_no_else", "Convergence: if without else"),
            Scenario::NestedIf => ("convergence.nested_if", "Convergence: nested ifs"),
            Scenario::SwitchCaseGroups => (
                "convergence.switch_case_groups",
                "Convergence: switch with multi-selector case groups",
            ),
            Scenario::LoopTripCount => (
                "convergence.loop_trip_count",
                "Convergence: loop with per-lane trip counts",
            ),
            Scenario::BreakContinue => (
                "convergence.break_continue",
                "Convergence: break and continue in a divergent loop",
            ),
            Scenario::EarlyReturn => (
                "convergence.early_return",
                "Convergence: early return, then a ballot",
            ),
            Scenario::FunctionCall => (
                "convergence.function_call",
                "Convergence: a function called from divergent lanes",
            ),
            Scenario::Elect => (
                "convergence.elect",
                "Convergence: subgroupElect in uniform and divergent flow",
            ),
            Scenario::BroadcastFirst => (
                "convergence.broadcast_first",
                "Convergence: subgroupBroadcastFirst on divergent paths",
            ),
        };
        let (rule, source) = self.scenario.rule();
        ExperimentInfo {
            id,
            family: Family::Convergence,
            title,
            rule,
            source,
            shaders: &[&shaders::CONVERGENCE],
            figures: &[],
            fit: None,
        }
    }

    fn run(&self, ctx: RunContext<'_>) -> Result<ExperimentResult> {
        let (lab, _, progress) = ctx.parts();
        let gpu = &lab.gpu;
        gpu.require_subgroups(self.id())?;
        let kernel = Kernel::of(
            &shaders::CONVERGENCE,
            self.scenario.entry(),
            RuntimeChecks::Checked,
        );
        let pipeline = kernel.pipeline(gpu, SOURCE, &[])?;
        let points = self.scenario.points().len() as u64;
        let buffer = storage_buffer(
            gpu,
            "divlab.convergence.records",
            points * u64::from(WORKGROUP_SIZE) * size_of::<ConvergenceRecord>() as u64,
        );
        gpu.dispatch(self.id(), &pipeline, &[&buffer], 1)?;
        let records: Vec<ConvergenceRecord> = read_buffer(gpu, self.id(), &buffer)?;
        progress(0.5);

        let subgroups = by_subgroup(&records, points as usize);
        let observations: Vec<SubgroupObservation> = subgroups.iter().map(observe).collect();
        let assessment = assess(self.scenario, &observations);
        let sizes: Vec<u32> = observations.iter().map(|o| o.size).collect();
        let mut result = self.new_result();
        result.param("workgroup_size", WORKGROUP_SIZE);
        let probe = lab.subgroup()?.size;
        let sizes = distinct(sizes);
        result.verdict(
            "pipeline_subgroup_size",
            "this pipeline runs with the subgroup size the probe saw",
            VerdictStatus::NotGuaranteed,
            format!("observed: subgroup_size {sizes:?} here, {probe} in the subgroup probe"),
        );
        result.param("subgroup_sizes", sizes);
        result.param(
            "points",
            self.scenario
                .points()
                .iter()
                .map(|p| p.label)
                .collect::<Vec<_>>(),
        );
        let statics = static_verdicts(self.scenario)?;
        result.param("static_verdicts", statics.clone());
        add_verdicts(self.scenario, &assessment, &statics, &mut result);
        result.lanes = lane_records(&subgroups);
        progress(1.0);
        Ok(result)
    }
}

/// The records of one subgroup: `[lane][point]`, lanes in `subgroup_invocation_id` order.
type SubgroupRecords = Vec<Vec<ConvergenceRecord>>;

/// Groups the records (point-major, one row per local index) by subgroup, in order of each
/// subgroup's first local index. Every invocation wrote point 0, which names its subgroup.
fn by_subgroup(records: &[ConvergenceRecord], points: usize) -> Vec<SubgroupRecords> {
    let n = WORKGROUP_SIZE as usize;
    let mut groups: BTreeMap<u32, SubgroupRecords> = BTreeMap::new();
    for id in 0..n {
        let entry = records[id];
        let lane_records = (0..points).map(|p| records[p * n + id]).collect();
        groups.entry(entry.subgroup).or_default().push(lane_records);
    }
    for lanes in groups.values_mut() {
        lanes.sort_by_key(|l| l[0].lane);
    }
    groups.into_values().collect()
}

fn observe(lanes: &SubgroupRecords) -> SubgroupObservation {
    let lanes_observed = lanes
        .iter()
        .map(|points| LaneObservation {
            id: points[0].local_index,
            lane: points[0].lane,
            points: points
                .iter()
                .map(|r| {
                    r.reached().then(|| Observed {
                        ballot: r.ballot_mask(),
                        value: r.value,
                    })
                })
                .collect(),
        })
        .collect();
    SubgroupObservation {
        size: lanes.first().map_or(0, |l| l[0].size),
        lanes: lanes_observed,
    }
}

fn distinct(mut values: Vec<u32>) -> Vec<u32> {
    values.sort_unstable();
    values.dedup();
    values
}

/// Per point, per subgroup: each lane's ballot and value (zero where it never got there).
fn lane_records(subgroups: &[SubgroupRecords]) -> Vec<LaneRecord> {
    let points = subgroups
        .first()
        .and_then(|s| s.first())
        .map_or(0, Vec::len);
    (0..points)
        .flat_map(|p| {
            subgroups
                .iter()
                .enumerate()
                .map(move |(s, lanes)| LaneRecord {
                    point: p as u32,
                    subgroup: s as u32,
                    local_index: lanes.iter().map(|l| l[0].local_index).collect(),
                    ballot: lanes.iter().map(|l| l[p].ballot).collect(),
                    value: lanes.iter().map(|l| l[p].value).collect(),
                })
        })
        .collect()
}

/// Each record point's static verdict from WGSL's uniformity analysis (`divlab::uniformity`),
/// to read beside what the device did there.
fn static_verdicts(scenario: Scenario) -> Result<Vec<String>> {
    let analysis = crate::uniformity::analyze_source("shaders/convergence.wgsl", SOURCE)?;
    let lines: Vec<&str> = SOURCE.lines().collect();
    let entry = format!("fn {}(", scenario.entry());
    let start = lines
        .iter()
        .position(|l| l.starts_with(&entry))
        .unwrap_or(0);
    Ok((0..scenario.points().len())
        .map(|p| {
            // In the entry point, or else in the helper it calls (defined above it).
            let needle = format!("record({p}u,");
            let line = lines[start..]
                .iter()
                .position(|l| l.contains(&needle))
                .map(|i| start + i)
                .or_else(|| lines[..start].iter().rposition(|l| l.contains(&needle)));
            line.map_or_else(
                || "no record call found".to_owned(),
                |i| format!("line {}: {}", i + 1, analysis.describe_line(i as u32 + 1)),
            )
        })
        .collect())
}

fn add_verdicts(
    scenario: Scenario,
    a: &Assessment,
    statics: &[String],
    result: &mut ExperimentResult,
) {
    let checked = format!("{} invocations in {} subgroups", a.invocations, a.subgroups);
    for guarantee in Guarantee::ALL {
        let failures = a.failed(guarantee);
        let detail = if failures.is_empty() {
            format!("all {checked}")
        } else {
            let quoted: Vec<&str> = failures.iter().take(QUOTED).map(String::as_str).collect();
            format!(
                "{} failures in {checked}; {}",
                failures.len(),
                quoted.join("; ")
            )
        };
        result.verdict(
            guarantee.key(),
            guarantee.check(),
            VerdictStatus::held_if(failures.is_empty()),
            detail,
        );
    }
    let violations: usize = a.failures.iter().map(Vec::len).sum();
    result.metric("violations", violations as f64);
    result.metric("subgroups", a.subgroups as f64);

    // Totals over the scenario's points, for the one-line observation `--bench` prints.
    for (place, name) in [(Place::Branch, "branch"), (Place::Join, "join")] {
        let tallies = scenario
            .points()
            .iter()
            .zip(&a.points)
            .filter(|(spec, _)| spec.place == place);
        let (together, sets) = tallies.fold((0, 0), |(y, n), (_, t)| (y + t.together, n + t.sets));
        result.metric(&format!("{name}_sets"), sets as f64);
        result.metric(&format!("{name}_sets_together"), together as f64);
    }
    for (p, (spec, tally)) in scenario.points().iter().zip(&a.points).enumerate() {
        if spec.place == Place::Entry || tally.sets == 0 {
            continue;
        }
        let question = match spec.place {
            Place::Join => "reconverged",
            _ => "ran as one set",
        };
        result.verdict(
            format!("point_{p}"),
            format!("point {p}, {}: {question} (not guaranteed)", spec.label),
            VerdictStatus::NotGuaranteed,
            format!("{}; {}", observation(question, tally), statics[p]),
        );
        result.metric(
            &format!("together_p{p}"),
            fraction(tally.together, tally.sets),
        );
        result.metric(
            &format!("structured_values_p{p}"),
            fraction(tally.structured_values, tally.lanes),
        );
    }
}

/// "reconverged: yes (16/16 sets); values as under structured reconvergence: 128/128".
fn observation(question: &str, t: &PointTally) -> String {
    let answer = match (t.together, t.sets) {
        (y, n) if y == n => "yes",
        (0, _) => "no",
        _ => "partly",
    };
    format!(
        "observed: {question}: {answer} ({}/{} structured sets); values as under structured \
         reconvergence: {}/{} invocations",
        t.together, t.sets, t.structured_values, t.lanes
    )
}

fn fraction(part: usize, whole: usize) -> f64 {
    part as f64 / whole.max(1) as f64
}
