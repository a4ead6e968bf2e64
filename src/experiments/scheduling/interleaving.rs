//! `scheduling.interleaving`: lanes on both sides of a divergent branch take tickets from their
//! subgroup's atomic counter at several points along their paths; the ticket order shows whether
//! one side ran first (serialization) or the sides interleaved. WGSL promises no order.
//!
//! Without subgroups the tickets are taken per aligned block of [`BLOCK`] consecutive local
//! invocations ([`Grouping::Blocks`]), split by the parity of the position in the block.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::experiments::RunContext;
use crate::experiments::scheduling::{BLOCK, Grouping, WORKGROUP_SIZE, WORKGROUPS, fraction};
use crate::gpu::{GpuContext, Kernel, RuntimeChecks, read_buffer, storage_buffer};
use crate::report::{ExperimentInfo, ExperimentResult, Family, Figure, LaneRecord, VerdictStatus};
use crate::shaders;
pub use crate::shaders::scheduling::interleaving::{POINTS, SIDE_ELSE, SIDE_THEN, TicketRecord};
use crate::{Result, stats};

/// The kernel with subgroups; [`kernel`] gives the one for a grouping. Its loops have constant
/// bounds.
pub const KERNEL: Kernel = Kernel::of(
    &shaders::SCHEDULING_INTERLEAVING,
    "main",
    RuntimeChecks::Checked,
);

/// The kernel for `grouping`: [`KERNEL`], or its `main_no_sg` entry point. Compile it with
/// `grouping.source(KERNEL.source)`.
pub fn kernel(grouping: Grouping) -> Kernel {
    Kernel {
        entry: grouping.pick(KERNEL.entry, "main_no_sg"),
        ..KERNEL
    }
}

/// Blocks a pattern string spells out before it abbreviates.
const PATTERN_BLOCKS: usize = 16;
/// Patterns the result lists, most common first.
const PATTERNS_LISTED: usize = 8;

/// What one subgroup's (or block's) tickets show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubgroupOrder {
    /// Tickets are exactly 0..n (atomicity).
    pub tickets_complete: bool,
    /// Every lane's ballot held only lanes of its own side.
    pub ballots_own_side: bool,
    /// Both sides had lanes.
    pub both_sides: bool,
    /// Side changes along the ticket order: 1 is serialized, more is interleaved.
    pub switches: usize,
    /// The side that took ticket 0.
    pub first_side: u32,
    /// Every (side, point) formed one contiguous run of tickets: a side's lanes moved in step.
    pub sides_in_step: bool,
    /// The ticket order as blocks, e.g. `T0 T1 T2 T3 E0 E1 E2 E3`.
    pub pattern: String,
}

/// Reads one subgroup's (or block's) order from its lanes' records.
pub fn order_of(lanes: &[&TicketRecord]) -> SubgroupOrder {
    let mut events: Vec<(u32, u32, usize)> = lanes
        .iter()
        .flat_map(|r| (0..POINTS).map(move |p| (r.tickets[p], r.side, p)))
        .collect();
    events.sort_unstable();
    let tickets_complete = events.iter().zip(0u32..).all(|(e, i)| e.0 == i);
    let ballots_own_side = lanes.iter().all(|r| {
        lanes
            .iter()
            .filter(|o| o.lane < 128 && ballot_has(r.ballot, o.lane))
            .all(|o| o.side == r.side)
    });
    let both_sides =
        lanes.iter().any(|r| r.side == SIDE_THEN) && lanes.iter().any(|r| r.side == SIDE_ELSE);
    let switches = events.windows(2).filter(|w| w[0].1 != w[1].1).count();
    let mut blocks: Vec<(u32, usize)> = Vec::new();
    for &(_, side, point) in &events {
        if blocks.last() != Some(&(side, point)) {
            blocks.push((side, point));
        }
    }
    let mut distinct = blocks.clone();
    distinct.sort_unstable();
    distinct.dedup();
    SubgroupOrder {
        tickets_complete,
        ballots_own_side,
        both_sides,
        switches,
        first_side: events.first().map_or(0, |e| e.1),
        sides_in_step: distinct.len() == blocks.len(),
        pattern: pattern(&blocks),
    }
}

fn ballot_has(ballot: [u32; 4], lane: u32) -> bool {
    ballot[(lane / 32) as usize] >> (lane % 32) & 1 == 1
}

fn pattern(blocks: &[(u32, usize)]) -> String {
    let mut out = String::new();
    for &(side, point) in blocks.iter().take(PATTERN_BLOCKS) {
        let name = if side == SIDE_THEN { 'T' } else { 'E' };
        let _ = write!(
            out,
            "{}{name}{point}",
            if out.is_empty() { "" } else { " " }
        );
    }
    if blocks.len() > PATTERN_BLOCKS {
        let _ = write!(out, " … ({} blocks)", blocks.len());
    }
    out
}

/// Groups a dispatch's records by subgroup or block (counter index), lanes in lane order.
fn by_subgroup(records: &[TicketRecord]) -> (BTreeMap<u32, Vec<&TicketRecord>>, usize) {
    let mut groups: BTreeMap<u32, Vec<&TicketRecord>> = BTreeMap::new();
    let mut unrecorded = 0;
    for r in records {
        if r.side == SIDE_THEN || r.side == SIDE_ELSE {
            groups.entry(r.subgroup).or_default().push(r);
        } else {
            unrecorded += 1;
        }
    }
    for lanes in groups.values_mut() {
        lanes.sort_by_key(|r| r.lane);
    }
    (groups, unrecorded)
}

/// The `scheduling.interleaving` experiment.
pub struct Interleaving;

fn run(ctx: RunContext<'_>) -> Result<ExperimentResult> {
    let (lab, config, progress) = ctx.parts();
    let gpu = &lab.gpu;
    let grouping = Grouping::of(gpu);
    let pipeline = kernel(grouping).pipeline(gpu, &grouping.source(KERNEL.source), &[])?;
    let runs = if config.quick { 2 } else { 8 };
    let mut dispatches = Vec::new();
    for run in 0..runs {
        dispatches.push(dispatch(gpu, &pipeline)?);
        progress((run + 1) as f64 / runs as f64);
    }
    let mut result = INFO.new_result();
    result.param("workgroup_size", WORKGROUP_SIZE);
    result.param("workgroups", WORKGROUPS);
    result.param("runs", runs);
    result.param("points", POINTS);
    match grouping {
        Grouping::Subgroups => {
            result.param(
                "split",
                "even subgroup_invocation_id takes the then-branch (T), odd the else-branch \
                 (E)",
            );
            result.param("subgroup_size_probe", lab.subgroup()?.size);
        }
        Grouping::Blocks => result.param(
            "split",
            format!(
                "even local_invocation_index % {BLOCK} takes the then-branch (T), odd the \
                 else-branch (E)"
            ),
        ),
    }
    grouping.record(&mut result);
    report(&dispatches, grouping, &mut result);
    if let Some(first) = dispatches.first() {
        let (groups, _) = by_subgroup(first);
        let patterns: Vec<String> = groups.values().map(|l| order_of(l).pattern).collect();
        result.param(&format!("per_{}_run0", grouping.unit()), patterns);
        // Sizes and the lane grid come from subgroup builtins and ballots.
        if grouping == Grouping::Subgroups {
            let mut sizes: Vec<u32> = first
                .iter()
                .filter(|r| r.side != 0)
                .map(|r| r.size)
                .collect();
            sizes.sort_unstable();
            sizes.dedup();
            result.param("subgroup_sizes", sizes);
            result.lanes = lane_records(first);
        }
    }
    Ok(result)
}

/// One dispatch with fresh (zero) counters.
fn dispatch(gpu: &GpuContext, pipeline: &wgpu::ComputePipeline) -> Result<Vec<TicketRecord>> {
    let label = "divlab.scheduling_interleaving";
    let invocations = u64::from(WORKGROUPS * WORKGROUP_SIZE);
    let counters = storage_buffer(
        gpu,
        "divlab.scheduling_interleaving.counters",
        invocations * 4,
    );
    let records = storage_buffer(
        gpu,
        "divlab.scheduling_interleaving.records",
        invocations * size_of::<TicketRecord>() as u64,
    );
    gpu.dispatch(label, pipeline, &[&counters, &records], WORKGROUPS)?;
    read_buffer(gpu, label, &records)
}

#[derive(Default)]
struct OrderTally {
    subgroups: usize,
    one_side: usize,
    serialized_then_first: usize,
    serialized_else_first: usize,
    interleaved: usize,
    in_step: usize,
    tickets_broken: usize,
    foreign_ballots: usize,
    unrecorded: usize,
    switches: Vec<f64>,
    patterns: BTreeMap<String, usize>,
}

fn report(dispatches: &[Vec<TicketRecord>], grouping: Grouping, result: &mut ExperimentResult) {
    let (unit, units) = (grouping.unit(), grouping.units());
    let note = grouping.note();
    let mut t = OrderTally::default();
    for records in dispatches {
        let (groups, unrecorded) = by_subgroup(records);
        t.unrecorded += unrecorded;
        for lanes in groups.values() {
            let o = order_of(lanes);
            t.tickets_broken += usize::from(!o.tickets_complete);
            t.foreign_ballots += usize::from(!o.ballots_own_side);
            if !o.both_sides {
                t.one_side += 1;
                continue;
            }
            t.subgroups += 1;
            t.switches.push(o.switches as f64);
            t.in_step += usize::from(o.sides_in_step);
            match (o.switches, o.first_side) {
                (1, SIDE_THEN) => t.serialized_then_first += 1,
                (1, _) => t.serialized_else_first += 1,
                _ => t.interleaved += 1,
            }
            *t.patterns.entry(o.pattern).or_default() += 1;
        }
    }
    let all = t.subgroups + t.one_side;
    result.verdict(
        "tickets_complete",
        format!("each {unit}'s tickets are distinct and complete (atomicAdd is atomic)"),
        VerdictStatus::held_if(t.tickets_broken == 0 && t.unrecorded == 0),
        format!(
            "{} of {all} {units} had missing or repeated tickets; {} invocations left no record",
            t.tickets_broken, t.unrecorded
        ),
    );
    // Without subgroups there are no ballots to check.
    if grouping == Grouping::Subgroups {
        result.verdict(
            "ballot_own_side",
            "an in-branch ballot holds only lanes of its own side",
            VerdictStatus::held_if(t.foreign_ballots == 0),
            format!(
                "{} of {all} subgroups had a ballot with a lane of the other side",
                t.foreign_ballots
            ),
        );
    }
    let serialized = t.serialized_then_first + t.serialized_else_first;
    let switches = stats::summarize(&t.switches).map_or_else(String::new, |s| {
        format!(" (side switches: median {}, max {})", s.median, s.max)
    });
    let mut common: Vec<(&String, &usize)> = t.patterns.iter().collect();
    common.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let most = common.first().map_or_else(String::new, |(p, n)| {
        format!("; most common pattern `{p}` ({n} {units})")
    });
    result.verdict(
        "order",
        "the two sides run in some order (serialized or interleaved; not guaranteed)",
        VerdictStatus::NotGuaranteed,
        format!(
            "observed: serialized in {serialized}/{} {units} (then-side first in {}, \
             else-side first in {}), interleaved in {}{switches}{most}{note}",
            t.subgroups, t.serialized_then_first, t.serialized_else_first, t.interleaved
        ),
    );
    result.verdict(
        "side_in_step",
        "the lanes of one side take each ticket together (not guaranteed)",
        VerdictStatus::NotGuaranteed,
        format!(
            "observed: in step in {}/{} {units}{note}",
            t.in_step, t.subgroups
        ),
    );
    result.metric(units, t.subgroups as f64);
    result.metric("serialized_then_first", t.serialized_then_first as f64);
    result.metric("serialized_else_first", t.serialized_else_first as f64);
    result.metric("interleaved", t.interleaved as f64);
    result.metric("interleaved_fraction", fraction(t.interleaved, t.subgroups));
    result.metric("sides_in_step", t.in_step as f64);
    if let Some(s) = stats::summarize(&t.switches) {
        result.metric("switches_median", s.median);
        result.metric("switches_max", s.max);
    }
    result.metric("distinct_patterns", t.patterns.len() as f64);
    let listed: serde_json::Map<String, serde_json::Value> = common
        .iter()
        .take(PATTERNS_LISTED)
        .map(|(p, n)| ((*p).clone(), (**n).into()))
        .collect();
    result.param("patterns", serde_json::Value::Object(listed));
}

/// The first dispatch's first workgroup: per point and subgroup, each lane's side ballot and the
/// ticket it took there.
fn lane_records(records: &[TicketRecord]) -> Vec<LaneRecord> {
    let (groups, _) = by_subgroup(records);
    let first: Vec<&Vec<&TicketRecord>> = groups
        .range(..WORKGROUP_SIZE)
        .map(|(_, lanes)| lanes)
        .collect();
    let mut out = Vec::new();
    for point in 0..POINTS {
        for (subgroup, lanes) in (0u32..).zip(&first) {
            out.push(LaneRecord {
                point: point as u32,
                subgroup,
                local_index: lanes.iter().map(|r| r.local_index).collect(),
                ballot: lanes.iter().map(|r| r.ballot).collect(),
                value: lanes.iter().map(|r| r.tickets[point]).collect(),
            });
        }
    }
    out
}

/// What `scheduling.interleaving` declares.
pub const INFO: ExperimentInfo = ExperimentInfo {
    id: "scheduling.interleaving",
    family: Family::Scheduling,
    title: "Scheduling: ticket order of the two sides of a divergent branch",
    rule: "Diverged lanes of one subgroup may interleave at fine granularity; no order \
           between the two sides of a branch is guaranteed (serialized under a \
           reconvergence stack, possibly interleaved with per-lane program counters)",
    source: "“Independent Thread Scheduling”; “Per-Lane Program Counters and Independent Thread Scheduling”; WGSL guarantees no scheduling order",
    shaders: &[&shaders::SCHEDULING_INTERLEAVING],
    figures: &[Figure::new("interleaved_fraction", "interleaved", 2, None)],
    fit: None,
};

declare_experiment!(Interleaving, INFO, run);

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(lane: u32, side: u32, tickets: [u32; 4], ballot: u32) -> TicketRecord {
        TicketRecord {
            subgroup: 0,
            lane,
            size: 4,
            side,
            tickets,
            ballot: [ballot, 0, 0, 0],
            local_index: lane,
            work: 0,
            pad: [0; 2],
        }
    }

    #[test]
    fn one_side_after_the_other_is_serialized_in_step() {
        let lanes = [
            lane(0, SIDE_THEN, [0, 2, 4, 6], 0b0101),
            lane(2, SIDE_THEN, [1, 3, 5, 7], 0b0101),
            lane(1, SIDE_ELSE, [8, 10, 12, 14], 0b1010),
            lane(3, SIDE_ELSE, [9, 11, 13, 15], 0b1010),
        ];
        let o = order_of(&lanes.iter().collect::<Vec<_>>());
        assert!(o.tickets_complete && o.ballots_own_side && o.both_sides && o.sides_in_step);
        assert_eq!((o.switches, o.first_side), (1, SIDE_THEN));
        assert_eq!(o.pattern, "T0 T1 T2 T3 E0 E1 E2 E3");
    }

    #[test]
    fn alternating_sides_interleave_and_bad_tickets_show() {
        let lanes = [
            lane(0, SIDE_ELSE, [0, 2, 4, 6], 0b11),
            lane(1, SIDE_THEN, [1, 3, 5, 5], 0b10),
        ];
        let o = order_of(&lanes.iter().collect::<Vec<_>>());
        assert!(!o.tickets_complete, "ticket 5 twice, 7 missing");
        assert!(
            !o.ballots_own_side,
            "lane 0's ballot holds lane 1 of the other side"
        );
        assert_eq!(o.first_side, SIDE_ELSE);
        assert!(o.switches > 1);
        assert!(o.pattern.starts_with("E0 T0 E1 T1"));
    }
}
