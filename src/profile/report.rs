//! What `divlab profile` found, per line and per branch, from the counters of one instrumented
//! run: the profile document (`--json`, described in docs/profile.md) and the annotated source.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::profile::instrument::{BlockKind, BranchKind, Counters, Instrumented, Opener};
use crate::report::AdapterRecord;
use crate::uniformity::{Analysis, Verdict};

/// The profile document's format version.
pub const PROFILE_SCHEMA_VERSION: u32 = 1;

/// The counters are subgroup operations themselves: said once in every profile.
pub const OBSERVER_NOTE: &str = "the counters are subgroup operations (ballots, votes, \
     reductions), so a compiler may reconverge differently around them than around the kernel \
     alone: the profile is of the instrumented kernel. A loop that leaves only by its test is \
     counted from each lane's trips, as if the lanes that entered together ran them together";

/// One profile of one kernel on one adapter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Format version, [`PROFILE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The adapter, as `--bench` records it.
    pub adapter: AdapterRecord,
    /// What ran.
    pub kernel: KernelRecord,
    /// The subgroup size this pipeline ran with: the largest ballot seen. `None` without
    /// subgroup operations.
    pub subgroup_size: Option<u32>,
    /// Σ active lanes / (Σ executions × subgroup size) over every executed block; `None`
    /// without subgroup operations.
    pub control_flow_efficiency: Option<f64>,
    /// One entry per source line that belongs to an instrumented block, in line order.
    pub lines: Vec<LineProfile>,
    /// One entry per `if`, `switch` and loop, in line order.
    pub branches: Vec<BranchProfile>,
    /// Whether an invocation ran into the loop cap (the profile is then of a cut-short run).
    pub loop_cap_hit: bool,
    /// The line of the first loop that hit the cap.
    pub loop_cap_line: Option<u32>,
    /// The loop cap: the most iterations one invocation runs of one entry into a loop.
    pub loop_cap: u32,
    /// The kernel's time alone and with its counters; absent when the run hit the loop cap.
    pub timing: Option<TimingRecord>,
    /// Remarks a user should read: the observer effect, why a figure is absent, cross-checks
    /// between the static analysis and what ran.
    pub notes: Vec<String>,
    /// `--lanes LINE`: the ballot of every subgroup execution at the line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lanes: Option<LaneCapture>,
}

/// What `--lanes LINE` recorded: one entry per subgroup execution of the block holding the line,
/// in the order the subgroups got there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaneCapture {
    /// The line asked for.
    pub line: u32,
    /// Subgroup executions at it (it may exceed the records kept).
    pub executions: u64,
    /// The first [`crate::profile::instrument::LANE_RECORDS`] executions.
    pub records: Vec<LaneExecution>,
}

/// One subgroup execution at the `--lanes` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneExecution {
    /// The active lanes, bit i for `subgroup_invocation_id` i (four words, low first).
    pub ballot: [u32; 4],
    /// The subgroup's `workgroup_id`.
    pub workgroup: [u32; 3],
    /// `local_invocation_index` of the lowest active lane.
    pub first_local_index: u32,
}

/// The block that owns `line` (its counts are the line's), if the kernel runs code there.
pub fn line_owner(instrumented: &Instrumented, line: u32) -> Option<usize> {
    line_owners(instrumented, None).get(&line).copied()
}

/// The profiled kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelRecord {
    /// The file as given.
    pub file: String,
    /// The entry point.
    pub entry: String,
    /// `@workgroup_size`.
    pub workgroup_size: [u32; 3],
    /// Workgroups dispatched.
    pub dispatch: [u32; 3],
}

/// One source line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineProfile {
    /// 1-based line of the user's file.
    pub line: u32,
    /// Subgroup-level executions of the block the line belongs to (invocations without
    /// subgroup operations).
    pub executions: u64,
    /// Σ active lanes over those executions; `None` without subgroup operations.
    pub active_lanes: Option<u64>,
    /// active_lanes / (executions × subgroup size); `None` when not executed or without
    /// subgroup operations.
    pub efficiency: Option<f64>,
    /// The static verdict at subgroup scope: `uniform`, `non-uniform` or `not-executed`.
    #[serde(rename = "static")]
    pub static_verdict: Option<String>,
}

/// One `if`, `switch` or loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BranchProfile {
    /// 1-based line.
    pub line: u32,
    /// `if`, `switch` or `loop`.
    pub kind: String,
    /// Subgroup executions that reached it (for a loop: of its body).
    pub executions: u64,
    /// Of those, how many had lanes disagree (for a loop: body executions with fewer lanes
    /// than the subgroup, the trips some lanes sat out).
    pub divergent: u64,
    /// divergent / executions.
    pub divergent_fraction: Option<f64>,
    /// Lane slots the subgroup paid for but left idle inside it: Σ (executions × SG − active
    /// lanes) over the blocks it opens.
    pub wasted_lane_slots: Option<u64>,
}

/// Timings, medians of `reps` interleaved runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimingRecord {
    /// The uninstrumented kernel.
    pub kernel_ns: f64,
    /// The instrumented kernel.
    pub instrumented_ns: f64,
    /// instrumented / kernel.
    pub overhead: f64,
    /// Repetitions behind each median.
    pub reps: usize,
    /// `gpu_timestamp` or `cpu_wall_clock`.
    pub source: crate::report::TimingSource,
}

/// Everything the report is built from.
pub struct Inputs<'a> {
    /// The instrumented kernel (its sites).
    pub instrumented: &'a Instrumented,
    /// The counters after the run.
    pub counters: &'a Counters,
    /// The largest ballot seen, where there are subgroups.
    pub subgroup_size: Option<u32>,
    /// The static analysis of the user's source, where it succeeded.
    pub analysis: Option<&'a Analysis>,
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
    } = *inputs;
    let subgroups = instrumented.options.subgroups;
    let static_of = |line: u32| {
        analysis
            .and_then(|a| a.line(line))
            .map(|l| verdict_name(l.subgroup).to_owned())
    };
    let owners = line_owners(instrumented, analysis);
    let lines = owners
        .iter()
        .map(|(&line, &b)| {
            let c = counters.blocks[b];
            LineProfile {
                line,
                executions: c.executions,
                active_lanes: subgroups.then_some(c.active_lanes),
                efficiency: subgroup_size.and_then(|sg| c.efficiency(sg)),
                static_verdict: static_of(line),
            }
        })
        .collect();

    // An empty block (an implicit `else`) runs no code: it idles no lane slots.
    let opened_by = |opener: Opener| -> Vec<usize> {
        (0..instrumented.blocks.len())
            .filter(|&b| instrumented.blocks[b].opener == opener && !instrumented.blocks[b].empty)
            .collect()
    };
    let wasted = |blocks: &[usize]| -> Option<u64> {
        let sg = u64::from(subgroup_size?);
        Some(
            blocks
                .iter()
                .map(|&b| {
                    let c = counters.blocks[b];
                    (c.executions * sg).saturating_sub(c.active_lanes)
                })
                .sum(),
        )
    };
    let fraction = |divergent: u64, executions: u64| {
        (subgroups && executions > 0).then(|| divergent as f64 / executions as f64)
    };
    // A loop's condition is shown as the loop: its exit test and the short-circuit `if`s naga
    // makes of a `&&`/`||` in it.
    let exit_tests: Vec<usize> = instrumented
        .loops
        .iter()
        .flat_map(|l| l.test_branches.clone())
        .collect();
    let mut branches = Vec::new();
    let mut notes = Vec::new();
    let mut check = |kind: &str, line: u32, arms: &[usize], c: (u64, u64)| {
        if subgroups {
            let arm_lines: Vec<(u32, Option<String>)> = owners
                .iter()
                .filter(|(_, b)| arms.contains(b))
                .map(|(&l, _)| (l, static_of(l)))
                .collect();
            let own = static_of(line);
            notes.extend(cross_check(kind, (line, own.as_deref()), &arm_lines, c));
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
        branches.push(BranchProfile {
            line: site.line,
            kind: branch_kind(site.kind).to_owned(),
            executions: c.evaluations,
            divergent: c.divergent,
            divergent_fraction: fraction(c.divergent, c.evaluations),
            wasted_lane_slots: wasted(&opened_by(Opener::Branch(r))),
        });
    }
    for (l, site) in instrumented.loops.iter().enumerate() {
        let blocks = opened_by(Opener::Loop(l));
        // With a `for`/`while` test, a loop's divergence is its test's: the trips on which the
        // lanes disagreed about going on. A bare `loop` shows its divergence at its `break`s.
        let (executions, divergent) = match site.exit_test {
            Some(test) => {
                let c = counters.branches[test];
                (c.evaluations, c.divergent)
            }
            None => {
                let body = blocks
                    .iter()
                    .find(|&&b| instrumented.blocks[b].kind == BlockKind::LoopBody);
                (body.map_or(0, |&b| counters.blocks[b].executions), 0)
            }
        };
        if site.exit_test.is_some() {
            check("loop", site.line, &blocks, (executions, divergent));
        }
        branches.push(BranchProfile {
            line: site.line,
            kind: "loop".to_owned(),
            executions,
            divergent,
            divergent_fraction: site.exit_test.and_then(|_| fraction(divergent, executions)),
            wasted_lane_slots: wasted(&blocks),
        });
    }
    branches.sort_by_key(|b| b.line);
    (lines, branches, notes)
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
    kind: &str,
    (line, own): (u32, Option<&str>),
    arm_lines: &[(u32, Option<String>)],
    (executions, divergent): (u64, u64),
) -> Option<String> {
    let verdicts: Vec<&str> = arm_lines.iter().filter_map(|(_, v)| v.as_deref()).collect();
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
    (executions > 0 && divergent == 0 && condition_makes_it).then(|| {
        format!(
            "line {line}: the code this {kind} guards is statically non-uniform, but the {kind} \
             never diverged on this input ({executions} subgroup executions): if its condition \
             is uniform by design, computing it from a value the analysis can prove uniform \
             (e.g. `workgroup_id` instead of `global_invocation_id`) lets the compiler know"
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

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Uniform => "uniform",
        Verdict::NonUniform => "non-uniform",
        Verdict::NotExecuted => "not-executed",
    }
}

/// The annotated source and summary `divlab profile` prints.
pub fn render_text(profile: &Profile, source: &str) -> String {
    let mut out = String::new();
    let k = &profile.kernel;
    let _ = writeln!(
        out,
        "{} `{}` on {} ({}): workgroup {:?}, dispatch {:?}",
        k.file,
        k.entry,
        profile.adapter.name,
        profile.adapter.backend,
        k.workgroup_size,
        k.dispatch
    );
    let by_line: BTreeMap<u32, &LineProfile> = profile.lines.iter().map(|l| (l.line, l)).collect();
    let branch_at: BTreeMap<u32, &BranchProfile> =
        profile.branches.iter().map(|b| (b.line, b)).collect();
    let _ = writeln!(
        out,
        "\n{:>10} {:>6} {:>6} {:>6} {:<12} | {:>4}  source",
        "execs", "lanes", "eff%", "div%", "static", "line"
    );
    for (i, text) in source.lines().enumerate() {
        let n = i as u32 + 1;
        let gutter = match by_line.get(&n) {
            Some(l) => {
                let lanes = match (l.active_lanes, l.executions) {
                    (Some(a), e) if e > 0 => format!("{:.1}", a as f64 / e as f64),
                    _ => "-".to_owned(),
                };
                let eff = l
                    .efficiency
                    .map_or_else(|| "-".to_owned(), |e| format!("{:.0}", e * 100.0));
                let div = branch_at
                    .get(&n)
                    .and_then(|b| b.divergent_fraction)
                    .map_or_else(String::new, |d| format!("{:.0}", d * 100.0));
                format!(
                    "{:>10} {lanes:>6} {eff:>6} {div:>6} {:<12}",
                    l.executions,
                    l.static_verdict.as_deref().unwrap_or("")
                )
            }
            None => format!("{:>10} {:>6} {:>6} {:>6} {:<12}", "", "", "", "", ""),
        };
        let _ = writeln!(out, "{gutter} | {n:>4}  {text}");
    }
    render_summary(profile, &mut out);
    out
}

fn render_summary(profile: &Profile, out: &mut String) {
    let _ = writeln!(out);
    match profile.subgroup_size {
        Some(sg) => {
            let _ = writeln!(out, "subgroup size (largest ballot seen): {sg}");
        }
        None => {
            let _ = writeln!(
                out,
                "subgroup size: not observed (this adapter has no subgroup operations: executions \
                 count invocations, and efficiency is not measured)"
            );
        }
    }
    if let Some(e) = profile.control_flow_efficiency {
        let _ = writeln!(
            out,
            "control-flow efficiency: {:.1}% (Σ active lanes / (Σ executions × subgroup size))",
            e * 100.0
        );
    }
    let mut top: Vec<&BranchProfile> = profile
        .branches
        .iter()
        .filter(|b| b.wasted_lane_slots.is_some_and(|w| w > 0))
        .collect();
    top.sort_by_key(|b| std::cmp::Reverse(b.wasted_lane_slots));
    if !top.is_empty() {
        let _ = writeln!(
            out,
            "top divergent branches (by idle lane slots inside them):"
        );
        for b in top.iter().take(5) {
            let _ = writeln!(
                out,
                "  line {:>4} {:<6} {} idle lane slots, divergent in {} of {} subgroup executions",
                b.line,
                b.kind,
                b.wasted_lane_slots.unwrap_or(0),
                b.divergent,
                b.executions
            );
        }
    }
    match &profile.timing {
        Some(t) => {
            let _ = writeln!(
                out,
                "time: {} alone, {} instrumented ({:.2}x), medians of {} runs ({})",
                fmt_ns(t.kernel_ns),
                fmt_ns(t.instrumented_ns),
                t.overhead,
                t.reps,
                match t.source {
                    crate::report::TimingSource::GpuTimestamp => "GPU timestamps",
                    crate::report::TimingSource::CpuWallClock => "CPU wall clock",
                }
            );
        }
        None => {
            let _ = writeln!(out, "time: not measured (the run hit the loop cap)");
        }
    }
    if let Some(lanes) = &profile.lanes {
        render_lanes(out, lanes, profile.subgroup_size.unwrap_or(32));
    }
    for note in &profile.notes {
        let _ = writeln!(out, "note: {note}");
    }
}

/// A duration with a unit a reader takes in at a glance.
pub fn fmt_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// `--lanes`: how many subgroup executions reached the line, and the first of them as lane
/// strings (`#` active, `.` not).
fn render_lanes(out: &mut String, lanes: &LaneCapture, subgroup_size: u32) {
    const SHOWN: usize = 16;
    let _ = writeln!(
        out,
        "lanes at line {}: {} subgroup executions{}; the first {} (# = active lane):",
        lanes.line,
        lanes.executions,
        if lanes.executions > lanes.records.len() as u64 {
            format!(" ({} recorded)", lanes.records.len())
        } else {
            String::new()
        },
        lanes.records.len().min(SHOWN)
    );
    for r in lanes.records.iter().take(SHOWN) {
        let bits: String = (0..subgroup_size.min(128))
            .map(|i| {
                if r.ballot[(i / 32) as usize] & (1 << (i % 32)) != 0 {
                    '#'
                } else {
                    '.'
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "  workgroup {:?}, first lane local index {:>5}: {bits}",
            r.workgroup, r.first_local_index
        );
    }
}
