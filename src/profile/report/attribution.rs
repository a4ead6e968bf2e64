//! Attribution: the counters of one run turned into per-line and per-branch figures, each
//! line reported with the block that owns it, and the cross-checks against the static
//! uniformity analysis.

use std::collections::{BTreeMap, HashMap};

use super::{BranchProfile, Clause, LineProfile};
use crate::profile::instrument::{
    BlockCounts, BlockKind, BranchKind, ClauseSite, Counters, Instrumented, LoopSite, Opener,
};
use crate::uniformity::{Analysis, Verdict};

/// The block that owns `line` (its counts are the line's), if the kernel runs code there.
pub fn line_owner(instrumented: &Instrumented, line: u32) -> Option<usize> {
    line_owners(instrumented, None).get(&line).copied()
}

/// Everything the report is built from.
pub struct Inputs<'a> {
    /// The instrumented kernel (its sites).
    pub instrumented: &'a Instrumented,
    /// The counters after the run.
    pub counters: &'a Counters,
    /// The pipeline's subgroup width W, where there are subgroups: efficiency is taken
    /// against it.
    pub subgroup_size: Option<u32>,
    /// The most lanes any ballot showed at the kernel's entry, where there are subgroups.
    pub widest_ballot: Option<u32>,
    /// `@workgroup_size`.
    pub workgroup_size: [u32; 3],
    /// The static analysis of the user's source, where it succeeded.
    pub analysis: Option<&'a Analysis>,
    /// What the condition of each branch reads, by line (`explain::condition_sources`): the
    /// cross-checks' advice follows it.
    pub conditions: &'a BTreeMap<u32, ConditionSource>,
}

/// What a branch's condition is computed from, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ConditionSource {
    /// Neither an invocation id nor memory that invocations write: constants, uniforms, a
    /// loop's own counter.
    Neither,
    /// Memory that invocations write (storage, workgroup or private memory, a storage
    /// texture) or a subgroup operation's result.
    Data,
    /// An invocation id (`global_invocation_id`, `local_invocation_id`,
    /// `local_invocation_index`, `subgroup_invocation_id`).
    Id,
}

/// Per-line and per-branch figures from the counters, and the cross-checks between them and
/// the static analysis.
pub fn lines_and_branches(
    inputs: &Inputs<'_>,
) -> (Vec<LineProfile>, Vec<BranchProfile>, Vec<String>) {
    let Inputs {
        instrumented,
        counters,
        subgroup_size,
        analysis,
        conditions,
        ..
    } = *inputs;
    let subgroups = instrumented.options.subgroups;
    let owners = line_owners(instrumented, analysis);
    let lines = line_profiles(inputs, &owners);

    let opened_by = |opener| blocks_opened_by(instrumented, opener);
    let wasted = |blocks: &[usize]| wasted_slots(counters, subgroup_size, blocks);
    // A loop's condition is shown as the loop: its exit test and the short-circuit `if`s naga
    // makes of a `&&`/`||` in it.
    let exit_tests: Vec<usize> = instrumented
        .loops
        .iter()
        .flat_map(|l| l.test_branches.clone())
        .collect();
    let mut branches = Vec::new();
    let mut row_of = HashMap::new();
    let mut notes = Vec::new();
    let mut check = |kind: &str, line: u32, arms: &[usize], c: (u64, u64)| {
        if subgroups {
            let arm_lines: Vec<u32> = owners
                .iter()
                .filter(|(_, b)| arms.contains(b))
                .map(|(&l, _)| l)
                .collect();
            let source = conditions.get(&line).copied();
            notes.extend(cross_check(analysis, kind, (line, &arm_lines), c, source));
        }
    };
    for (r, site) in instrumented.branches.iter().enumerate() {
        let c = counters.branches[r];
        if exit_tests.contains(&r) {
            continue; // Shown as its loop.
        }
        check(
            branch_kind(site.kind),
            site.line,
            &opened_by(Opener::Branch(r)),
            (c.evaluations, c.divergent),
        );
        let (taken, not_taken) = match site.kind {
            BranchKind::If => sides_taken(instrumented, counters, r, &lines, subgroups),
            BranchKind::Switch => (None, None),
        };
        branches.push(BranchProfile {
            line: site.line,
            kind: branch_kind(site.kind).to_owned(),
            executions: c.evaluations,
            divergent: c.divergent,
            divergent_fraction: divergent_fraction(subgroups, c.divergent, c.evaluations),
            wasted_lane_slots: wasted(&opened_by(Opener::Branch(r))),
            trips: None,
            lane_trips: None,
            left_early: None,
            taken,
            not_taken,
            cost: None,
            inherited_from: None,
            clause: site.clause.as_ref().map(Clause::from),
        });
        row_of.insert(Opener::Branch(r), branches.len() - 1);
    }
    for (l, site) in instrumented.loops.iter().enumerate() {
        let blocks = opened_by(Opener::Loop(l));
        let row = loop_row(inputs, l, &blocks);
        if site.exit_test.is_some() {
            check("loop", site.line, &blocks, (row.executions, row.divergent));
        }
        branches.push(row);
        row_of.insert(Opener::Loop(l), branches.len() - 1);
    }
    if !subgroups {
        // Nothing votes without subgroups: a branch was evaluated by the invocations that
        // reached its line (a loop's: its entries).
        for b in &mut branches {
            let at = lines.binary_search_by_key(&b.line, |l| l.line);
            b.executions = at.map_or(0, |i| lines[i].executions);
        }
    }
    mark_inherited(instrumented, &mut branches, &row_of);
    branches.sort_by_key(|b| b.line);
    (lines, branches, notes)
}

/// The share of `executions` that diverged; `None` without subgroups (nothing was counted) or
/// executions.
fn divergent_fraction(subgroups: bool, divergent: u64, executions: u64) -> Option<f64> {
    (subgroups && executions > 0).then(|| divergent as f64 / executions as f64)
}

/// Loop `l`'s row, whose blocks are `blocks`, but for what the report adds after (its cost,
/// the branch its idle slots are inherited from).
fn loop_row(inputs: &Inputs<'_>, l: usize, blocks: &[usize]) -> BranchProfile {
    let Inputs {
        instrumented,
        counters,
        subgroup_size,
        ..
    } = *inputs;
    let subgroups = instrumented.options.subgroups;
    let site = &instrumented.loops[l];
    // With a `for`/`while` test, a loop's divergence is its test's: the trips on which the
    // lanes disagreed about going on. A bare `loop` shows its divergence at its `break`s.
    let body = blocks
        .iter()
        .find(|&&b| instrumented.blocks[b].kind == BlockKind::LoopBody)
        .map(|&b| counters.blocks[b]);
    let (executions, divergent) = match site.exit_test {
        Some(test) => {
            let c = counters.branches[test];
            (c.evaluations, c.divergent)
        }
        None => (body.map_or(0, |b| b.executions), 0),
    };
    let mut row = BranchProfile {
        line: site.line,
        kind: "loop".to_owned(),
        executions,
        divergent,
        divergent_fraction: site
            .exit_test
            .and_then(|_| divergent_fraction(subgroups, divergent, executions)),
        wasted_lane_slots: None,
        trips: body.map(|b| b.executions),
        lane_trips: body.filter(|_| subgroups).map(|b| b.active_lanes),
        left_early: subgroups
            .then(|| left_early(instrumented, counters, l))
            .flatten(),
        taken: None,
        not_taken: None,
        cost: None,
        inherited_from: None,
        clause: None,
    };
    // Each trip once, as the loop's own figures count them: summed over the blocks it opens, a
    // trip split by a `break`'s `if` (counted anew after it) would count its idle lanes again.
    row.wasted_lane_slots = (row.trip_slots(subgroup_size))
        .map(|(ran, paid)| paid.saturating_sub(ran))
        .or_else(|| wasted_slots(counters, subgroup_size, blocks));
    row
}

/// Whether lanes left loop `l` early: a branch inside it (not its test) with a `break` of it or
/// a `return` in a side diverged. `None` where no branch holds one, or a `break if` may end it.
fn left_early(instrumented: &Instrumented, counters: &Counters, l: usize) -> Option<bool> {
    let site = &instrumented.loops[l];
    if site.break_if {
        return None;
    }
    // Whether a branch standing in the block `at` opens is inside loop `l`: for a `break`, with
    // no loop or `switch` between (the `break` would be theirs); for a `return`, anywhere.
    let inside = |mut at: Opener, returning: bool| loop {
        match at {
            Opener::Loop(x) if x == l => return true,
            Opener::Function => return false,
            Opener::Loop(_) if !returning => return false,
            Opener::Branch(r)
                if !returning && instrumented.branches[r].kind == BranchKind::Switch =>
            {
                return false;
            }
            _ => at = instrumented.enclosing(at),
        }
    };
    let leaving: Vec<usize> = (0..instrumented.branches.len())
        .filter(|r| !site.test_branches.contains(r))
        .filter(|&r| {
            let b = &instrumented.branches[r];
            (b.exits.breaks && inside(b.enclosing, false))
                || (b.exits.returns && inside(b.enclosing, true))
        })
        .collect();
    (!leaving.is_empty()).then(|| leaving.iter().any(|&r| counters.branches[r].divergent > 0))
}

/// Fills in `inherited_from` on each row that never diverged but idled slots: the line of the
/// innermost branch or loop around it that diverged (0 where none did), walking out through
/// the sites that open the blocks it stands in (a loop's exit test, which has no row, stands
/// for its loop).
fn mark_inherited(
    instrumented: &Instrumented,
    rows: &mut [BranchProfile],
    row_of: &HashMap<Opener, usize>,
) {
    for (&site, &row) in row_of {
        if !rows[row].inherits_idle_slots() {
            continue;
        }
        let mut around = instrumented.enclosing(site);
        rows[row].inherited_from = loop {
            match row_of.get(&around) {
                Some(&r) if rows[r].diverged() => break Some(rows[r].line),
                _ if around == Opener::Function => break Some(0),
                _ => around = instrumented.enclosing(around),
            }
        };
    }
}

/// The blocks `opener` opens that run code: an empty block (an implicit `else`) idles no lane
/// slots.
fn blocks_opened_by(instrumented: &Instrumented, opener: Opener) -> Vec<usize> {
    (0..instrumented.blocks.len())
        .filter(|&b| instrumented.blocks[b].opener == opener && !instrumented.blocks[b].empty)
        .collect()
}

/// Σ (executions × SG − active lanes) over `blocks`; `None` without subgroups.
fn wasted_slots(counters: &Counters, subgroup_size: Option<u32>, blocks: &[usize]) -> Option<u64> {
    let sg = u64::from(subgroup_size?);
    let idle = |b: usize| {
        let c = counters.blocks[b];
        (c.executions * sg).saturating_sub(c.active_lanes)
    };
    Some(blocks.iter().map(|&b| idle(b)).sum())
}

impl From<&ClauseSite> for Clause {
    fn from(c: &ClauseSite) -> Self {
        Clause {
            text: c.text.clone(),
            line: c.line,
            column: c.column,
            operator: c.operator.map(str::to_owned),
        }
    }
}

/// One row per line with code: the figures of the block that owns it, and its static verdict.
fn line_profiles(inputs: &Inputs<'_>, owners: &BTreeMap<u32, usize>) -> Vec<LineProfile> {
    let subgroups = inputs.instrumented.options.subgroups;
    owners
        .iter()
        .map(|(&line, &b)| {
            let c = inputs.counters.blocks[b];
            LineProfile {
                line,
                executions: c.executions,
                active_lanes: subgroups.then_some(c.active_lanes),
                efficiency: inputs.subgroup_size.and_then(|sg| c.efficiency(sg)),
                static_verdict: (inputs.analysis)
                    .and_then(|a| a.line(line))
                    .map(|l| verdict_name(l.subgroup).to_owned()),
            }
        })
        .collect()
}

/// The lanes that took the `then` and the other side of `if` number `branch` (invocations
/// without subgroups), summed over its evaluations. A side with code counts its own lanes; an
/// implicit `else` counts none (it runs nothing), so its lanes are those that reached the `if`
/// (its line's) less those that took the `then` side, where the line's figure allows it.
fn sides_taken(
    instrumented: &Instrumented,
    counters: &Counters,
    branch: usize,
    lines: &[LineProfile],
    subgroups: bool,
) -> (Option<u64>, Option<u64>) {
    let lanes = |c: BlockCounts| {
        if subgroups {
            c.active_lanes
        } else {
            c.executions
        }
    };
    let side = |kind: BlockKind| {
        (0..instrumented.blocks.len()).find(|&b| {
            instrumented.blocks[b].opener == Opener::Branch(branch)
                && instrumented.blocks[b].kind == kind
        })
    };
    let counted = |b: Option<usize>| {
        let b = b?;
        Some(if instrumented.blocks[b].empty {
            None
        } else {
            Some(lanes(counters.blocks[b]))
        })
    };
    let Some(Some(taken)) = counted(side(BlockKind::IfAccept)) else {
        return (None, None);
    };
    let not_taken = match counted(side(BlockKind::IfReject)) {
        Some(Some(lanes)) => Some(lanes),
        _ => {
            let line = instrumented.branches[branch].line;
            // `lines` are in line order (their owners' map is).
            let at = lines.binary_search_by_key(&line, |l| l.line).ok();
            let reached = at.map(|i| &lines[i]).and_then(|l| {
                if subgroups {
                    l.active_lanes
                } else {
                    Some(l.executions)
                }
            });
            reached.and_then(|r| r.checked_sub(taken))
        }
    };
    (not_taken.map(|_| taken), not_taken)
}

fn branch_kind(kind: BranchKind) -> &'static str {
    match kind {
        BranchKind::If => "if",
        BranchKind::Switch => "switch",
    }
}

/// What the static analysis and one branch's counters say together: divergence inside arms the
/// analysis calls subgroup-uniform is a divlab bug; arms it calls non-uniform that never
/// diverged on this input are a hint that the code could let the compiler prove uniformity.
fn cross_check(
    analysis: Option<&Analysis>,
    kind: &str,
    (line, arm_lines): (u32, &[u32]),
    (executions, divergent): (u64, u64),
    source: Option<ConditionSource>,
) -> Option<String> {
    let verdict_at = |l: u32| analysis?.line(l);
    let own = verdict_at(line).map(|v| verdict_name(v.subgroup));
    let verdicts: Vec<&str> = arm_lines
        .iter()
        .filter_map(|&l| verdict_at(l).map(|v| verdict_name(v.subgroup)))
        .collect();
    if divergent > 0 && !verdicts.is_empty() && verdicts.iter().all(|v| *v == "uniform") {
        return Some(format!(
            "line {line}: the {kind} diverged in {divergent} of {executions} subgroup executions, \
             but the static analysis calls the code it guards subgroup-uniform: a divlab bug, \
             please report it with the kernel"
        ));
    }
    // Only where the branch itself is reached uniformly: inside divergent code every arm is
    // non-uniform whatever its condition.
    let condition_makes_it = own == Some("uniform") && verdicts.contains(&"non-uniform");
    // The advice follows what the condition reads: an invocation id, or loaded data. A
    // condition that reads neither (a loop over constants) does not make the code it guards
    // non-uniform, so there is nothing to advise.
    let how = if source? == ConditionSource::Id {
        "if its condition is uniform by design, computing it from a value the analysis can prove \
         uniform (e.g. `workgroup_id` instead of `global_invocation_id`) lets the compiler know"
    } else if source? == ConditionSource::Data {
        "the data its condition reads was the same across each subgroup; where it always is, \
         reading it from a `var<uniform>` or a read-only `var<storage>`, which the analysis \
         treats as uniform, lets the compiler know"
    } else {
        return None;
    };
    (executions > 0 && divergent == 0 && condition_makes_it).then(|| {
        format!(
            "line {line}: the code this {kind} guards is statically non-uniform, but the {kind} \
             never diverged on this input ({executions} subgroup executions): {how}"
        )
    })
}

/// The block each source line is reported with: the innermost block whose own statements
/// cover it (blocks come outer before inner, so later ones win), except that an arm written on
/// its statement's own line (the `break` of a `for` test, `if c { return; }`) does not take the
/// line from the block that runs the statement. With a static analysis, only lines with code.
fn line_owners(instrumented: &Instrumented, analysis: Option<&Analysis>) -> BTreeMap<u32, usize> {
    let mut owner: BTreeMap<u32, usize> = BTreeMap::new();
    for (b, site) in instrumented.blocks.iter().enumerate() {
        if site.empty {
            continue;
        }
        let on_header = *site.lines.start() == site.parent_line && site.opener != Opener::Function;
        for line in site.lines.clone() {
            if on_header && line == site.parent_line && owner.contains_key(&line) {
                continue;
            }
            owner.insert(line, b);
        }
    }
    if let Some(a) = analysis {
        owner.retain(|&line, _| a.line(line).is_some());
    }
    owner
}

/// Σ active lanes / (Σ executions × SG) over every executed block.
pub fn control_flow_efficiency(counters: &Counters, subgroup_size: Option<u32>) -> Option<f64> {
    let sg = f64::from(subgroup_size?);
    let (lanes, executions) = counters.blocks.iter().fold((0.0, 0.0), |(l, e), c| {
        (l + c.active_lanes as f64, e + c.executions as f64)
    });
    (executions > 0.0).then(|| lanes / (executions * sg))
}

/// 1 − Σ divergent / Σ evaluations over the branches whose evaluations were measured (those
/// with a `divergent_fraction`: not a bare `loop`, whose count is of body executions), as
/// Nsight Compute and nvprof define `branch_efficiency`. `None` without evaluations.
pub fn branch_efficiency(branches: &[BranchProfile]) -> Option<f64> {
    let (divergent, evaluations) = branches
        .iter()
        .filter(|b| b.divergent_fraction.is_some())
        .fold((0u64, 0u64), |(d, e), b| {
            (d + b.divergent, e + b.executions)
        });
    (evaluations > 0).then(|| 1.0 - divergent as f64 / evaluations as f64)
}

/// Where subgroups are never full, what caps every line's efficiency: a workgroup with fewer
/// invocations than the subgroup width leaves lanes it can never fill; otherwise the widest
/// ballot at the kernel's entry (`widest_ballot`) shows how many invocations the adapter put
/// in one subgroup, which for some workgroup shapes is fewer than the width (lavapipe fills a
/// subgroup from one row of the workgroup along x).
pub fn width_note(
    workgroup_size: [u32; 3],
    subgroup_size: Option<u32>,
    widest_ballot: Option<u32>,
) -> Option<String> {
    let width = subgroup_size?;
    let invocations: u64 = workgroup_size.iter().map(|&n| u64::from(n)).product();
    let percent = |lanes: u64| {
        let cap = format!("{:.1}", lanes as f64 / f64::from(width) * 100.0);
        cap.strip_suffix(".0").unwrap_or(&cap).to_owned()
    };
    if invocations < u64::from(width) {
        return Some(format!(
            "workgroups of {invocations} invocation{} fill {invocations} of {width} lanes; lane \
             efficiency cannot exceed {}%",
            if invocations == 1 { "" } else { "s" },
            percent(invocations)
        ));
    }
    let widest = widest_ballot.filter(|&w| w > 0 && w < width)?;
    let [x, y, z] = workgroup_size;
    let why = if widest == x {
        format!(
            "the adapter filled each subgroup from one row of the workgroup along x ({x} \
             invocations), not from consecutive local indices; a workgroup whose x is a \
             multiple of {width} fills them"
        )
    } else {
        format!("the adapter put at most {widest} of the workgroup's invocations in a subgroup")
    };
    Some(format!(
        "subgroups are never full: the widest ballot at the kernel's entry held {widest} of \
         {width} lanes, so lane efficiency cannot exceed {}% on any line, uniform ones \
         included. Workgroups of {x}×{y}×{z} = {invocations} invocations could fill \
         {full} subgroups of {width}, but {why}",
        percent(u64::from(widest)),
        full = invocations / u64::from(width),
    ))
}

/// A note on the loops whose body ran more often than the loop's own line: that line counts
/// the subgroup executions that reached the loop (once per entry, by the code around it),
/// the body's lines count its trips, so the body's figures (executions, lanes, efficiency) are
/// of other runs than the line that guards it. Counted without subgroups (`subgroups` false),
/// executions are invocations.
pub fn loop_lines_note(
    lines: &[LineProfile],
    branches: &[BranchProfile],
    subgroups: bool,
) -> Option<String> {
    let executions = |n: u32| {
        lines
            .binary_search_by_key(&n, |l| l.line)
            .ok()
            .map(|i| lines[i].executions)
    };
    let loops: Vec<String> = branches
        .iter()
        .filter(|b| b.kind == "loop")
        .filter_map(|b| {
            let (entries, trips) = (executions(b.line)?, b.trips?);
            (trips > entries).then(|| format!("{} ({entries} entries, {trips} trips)", b.line))
        })
        .collect();
    // The first few: a kernel of many nested loops would make it a list of lines.
    const LISTED: usize = 4;
    let more = loops.len().saturating_sub(LISTED);
    let mut loops = loops;
    loops.truncate(LISTED);
    if more > 0 {
        loops.push(format!("{more} more"));
    }
    let list = match loops.len() {
        0 => return None,
        1 => format!("line {}", loops[0]),
        _ => format!("lines {}", and_list(&loops)),
    };
    let (reached, lanes) = if subgroups {
        ("subgroup executions", ", and with other lanes active,")
    } else {
        ("invocations", "")
    };
    Some(format!(
        "{list}: a loop's own line counts the {reached} that reached the loop, once per entry, \
         and its body's lines count its trips, so a body runs more often{lanes} than the line \
         of the loop that guards it"
    ))
}

/// In a run the loop cap cut short, a note on the loops of fixed trips: they are counted on
/// the host, as their trips times the lanes that reached them, so where the cap cut one short
/// its lines count trips that did not run.
pub fn capped_fixed_loops_note(loops: &[LoopSite]) -> Option<String> {
    let lines: Vec<String> = loops
        .iter()
        .filter(|l| l.fixed_trips.is_some())
        .map(|l| l.line.to_string())
        .collect();
    let list = match lines.len() {
        0 => return None,
        1 => format!("the loop of fixed trips on line {} is", lines[0]),
        _ => format!("the loops of fixed trips on lines {} are", and_list(&lines)),
    };
    Some(format!(
        "{list} counted from its trips, known before the run, times the lanes that reached it: \
         where the cap cut such a loop short, its lines count trips that did not run"
    ))
}

/// `a, b and c`.
pub fn and_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Uniform => "uniform",
        Verdict::NonUniform => "non-uniform",
        Verdict::NotExecuted => "not-executed",
    }
}
