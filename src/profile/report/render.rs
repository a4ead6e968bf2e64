//! Rendering: the annotated source and the summary `divlab profile` prints.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::cost::saving_words;
use super::{BranchCost, BranchProfile, CostVerdict, LaneCapture, LineProfile, Profile};
use crate::report::units::format_ns;

/// The annotated source and summary `divlab profile` prints. A document written with
/// `--no-source` shows its profiled lines without their text.
pub fn render_text(profile: &Profile) -> String {
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
    // Every line of the source, or without it every line with figures.
    let rows: Vec<(u32, &str)> = match &profile.source {
        Some(source) => (1..).zip(source.lines()).collect(),
        None => by_line.keys().map(|&n| (n, "")).collect(),
    };
    for (n, text) in rows {
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
    if profile.source.is_none() {
        let _ = writeln!(
            out,
            "(the document has no source text: it was written with --no-source)"
        );
    }
    render_summary(profile, &mut out);
    out
}

fn render_summary(profile: &Profile, out: &mut String) {
    let _ = writeln!(out);
    match profile.subgroup_size {
        Some(sg) => {
            let widest = profile
                .widest_ballot
                .map_or_else(String::new, |b| format!(" (widest ballot seen: {b})"));
            let lanes = if sg == 1 { "lane" } else { "lanes" };
            let _ = writeln!(out, "subgroup size: {sg} {lanes}{widest}");
        }
        None => {
            let why = match profile.request.counts.as_deref() {
                Some(counts) => format!("--counts {counts}"),
                None => "this adapter has no subgroup operations".to_owned(),
            };
            let _ = writeln!(
                out,
                "subgroup size: not observed ({why}: executions count invocations, and \
                 efficiency is not measured)"
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
    if let Some(e) = profile.branch_efficiency {
        let _ = writeln!(
            out,
            "branch efficiency: {:.1}% (1 − Σ divergent / Σ evaluations over the branches)",
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
            // Idle slots in a branch that never diverged are not its own: they are the cost of
            // the branch or loop around it, kept here since that one does not count them.
            let around = b
                .inherited_reason(&profile.branches)
                .map_or_else(String::new, |why| format!("; never diverged: {why}"));
            if let Some(figures) = b.loop_figures(profile.subgroup_size) {
                let label = b.kind_label();
                let _ = writeln!(out, "  line {:>4} {label:<6} {figures}{around}", b.line);
                continue;
            }
            let taken = b
                .taken_phrase()
                .map_or_else(String::new, |t| format!(", {t}"));
            let _ = writeln!(
                out,
                "  line {:>4} {:<6} {} idle lane slots, divergent in {} of {} subgroup \
                 executions{taken}{around}",
                b.line,
                b.kind_label(),
                b.wasted_lane_slots.unwrap_or(0),
                b.divergent,
                b.executions
            );
        }
    }
    render_costs(profile, out);
    render_clauses(profile, out);
    match &profile.timing {
        Some(t) => {
            let floor = t.floor_ns.map_or_else(String::new, |f| {
                let priced = (t.above_floor_text())
                    .map_or_else(String::new, |above| format!(": they price {above}"));
                format!(
                    "; an empty kernel over the same workgroups {}, the fixed cost --cost's \
                     predictions leave out{priced}",
                    format_ns(f)
                )
            });
            let _ = writeln!(
                out,
                "time: {} alone, {} instrumented ({}), medians of {} runs ({}; --reps {}, \
                 --time-budget {} s){floor}",
                format_ns(t.kernel_ns),
                format_ns(t.instrumented_ns),
                t.overhead_text(),
                t.reps,
                match t.source {
                    crate::report::TimingSource::GpuTimestamp => "GPU timestamps",
                    crate::report::TimingSource::CpuWallClock => "CPU wall clock",
                },
                profile.request.reps,
                t.time_budget_s,
            );
            for note in t.notes() {
                let _ = writeln!(out, "note: {note}");
            }
        }
        None => {
            let _ = writeln!(out, "time: not measured (the run hit the loop cap)");
        }
    }
    if let Some(line) = profile.compile_text() {
        let _ = writeln!(out, "{line}");
    }
    if let Some(outputs) = &profile.outputs {
        let _ = writeln!(out, "outputs: {}", outputs.summary());
        for note in outputs.notes() {
            let _ = writeln!(out, "note: {note}");
        }
    }
    if let Some(lanes) = &profile.lanes {
        let shape = profile.kernel.workgroup_size;
        render_lanes(out, lanes, profile.subgroup_size.unwrap_or(32), shape);
    }
    for note in &profile.notes {
        let _ = writeln!(out, "note: {note}");
    }
}

/// Every `if` row of a short-circuit chain, by line: each names its clause, so that the rows
/// of one line, whose shares differ, can be told apart.
fn render_clauses(profile: &Profile, out: &mut String) {
    let rows: Vec<&BranchProfile> = profile
        .branches
        .iter()
        .filter(|b| b.clause.is_some())
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "conditions evaluated clause by clause (naga makes an `if` of each `&&`/`||`, on the \
         condition's line):"
    );
    for b in rows {
        let taken = b
            .taken_phrase()
            .map_or_else(String::new, |t| format!("{t}, "));
        let _ = writeln!(
            out,
            "  line {:>4} {}: {taken}divergent in {} of {} subgroup executions",
            b.line,
            b.kind_label(),
            b.divergent,
            b.executions
        );
    }
}

/// `--lanes`: how many subgroup executions reached the line, and the first of them as lane
/// strings (`#` active, `.` not); in a 2-D or 3-D workgroup, each active lane's
/// `local_invocation_id` after it (`lane:(x,y)`, `?:` where the lane is not known).
fn render_lanes(out: &mut String, lanes: &LaneCapture, subgroup_size: u32, shape: [u32; 3]) {
    const SHOWN: usize = 16;
    let _ = writeln!(
        out,
        "lanes at line {}: {} subgroup execution{}{}; the first {} (# = active lane):",
        lanes.line,
        lanes.executions,
        if lanes.executions == 1 { "" } else { "s" },
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
        if let Some(invocations) = &r.invocations {
            let ids: Vec<String> = invocations
                .iter()
                .map(|i| {
                    let lane = i.lane.map_or_else(|| "?".to_owned(), |l| l.to_string());
                    let [x, y, z] = i.local_id;
                    if shape[2] > 1 {
                        format!("{lane}:({x},{y},{z})")
                    } else {
                        format!("{lane}:({x},{y})")
                    }
                })
                .collect();
            let more = if r.invocations_complete == Some(false) {
                " and lanes further on"
            } else {
                ""
            };
            let _ = writeln!(out, "    lane:local id {}{more}", ids.join(" "));
        }
    }
}

/// One row of `--cost`'s table, without its line end.
fn cost_row(b: &BranchProfile, c: &BranchCost) -> String {
    let measured = match (c.saved_ns, c.interval_ns) {
        (Some(s), Some([low, high])) => format!(
            "{}, interval {} to {}",
            saving_words(s, c.saved_fraction.unwrap_or(f64::NAN), 1),
            format_ns(low),
            format_ns(high),
        ),
        _ => "not measured".to_owned(),
    };
    let predicted = match c.predicted_text() {
        Some(p) => format!(", predicted {p}"),
        None => String::new(),
    };
    format!(
        "  line {:>4} {:<6} {:<13} {measured}{predicted}: {}",
        b.line,
        b.kind_label(),
        c.verdict.key(),
        c.reason
    )
}

/// `--cost`'s table: the measured branches by saving (most first), then the others, each with
/// its interval, the prediction and the verdict; a line on each verdict shown.
pub(super) fn render_costs(profile: &Profile, out: &mut String) {
    let mut costed: Vec<(&BranchProfile, &BranchCost)> = (profile.branches.iter())
        .filter_map(|b| Some((b, b.cost.as_ref()?)))
        .filter(|(_, c)| c.verdict != CostVerdict::NotDivergent)
        .collect();
    if costed.is_empty() {
        // Asked for, and every row judged: say so, rather than leave --cost without a word.
        if profile.branches.iter().any(|b| b.cost.is_some()) {
            let _ = writeln!(
                out,
                "cost of divergence on this adapter (--cost): no branch or loop diverged in 1% \
                 or more of its evaluations on this input, so there was nothing to measure"
            );
        }
        return;
    }
    let saved = |c: &BranchCost| c.saved_ns.unwrap_or(f64::NEG_INFINITY);
    costed.sort_by(|a, b| saved(b.1).total_cmp(&saved(a.1)));
    let placements = (costed.iter())
        .filter_map(|(_, c)| Some(c.placement_saved_ns.as_ref()?.len()))
        .max()
        .map_or_else(String::new, |n| format!(" over {n} buffer placements"));
    let _ = writeln!(
        out,
        "cost of divergence on this adapter (--cost: the kernel against a variant whose \
         subgroups follow their first active lane; median saving per dispatch, share of the \
         kernel, 95% interval{placements}):"
    );
    let rows: Vec<String> = costed.iter().map(|(b, c)| cost_row(b, c)).collect();
    // Branches alike (several `if`s on one line, none measured) print once, with their count.
    for alike in rows.chunk_by(|a, b| a == b) {
        let count = match alike.len() {
            1 => String::new(),
            n => format!(" ({n} branches alike)"),
        };
        let _ = writeln!(out, "{}{count}", alike[0]);
    }
    let mut shown: Vec<CostVerdict> = costed.iter().map(|(_, c)| c.verdict).collect();
    shown.sort_by_key(|v| v.key());
    shown.dedup();
    for verdict in shown {
        let _ = writeln!(out, "  {}: {}", verdict.key(), verdict.meaning());
    }
    let timed_clause = (costed.iter()).any(|(b, c)| {
        c.variant_reps > 0 && b.clause.as_ref().is_some_and(|c| c.operator.is_some())
    });
    if timed_clause {
        let _ = writeln!(
            out,
            "  a `&&`/`||` clause's variant is another: every lane evaluates the next clause, as \
             `&`/`|` would, which leaves no path out, so it has no prediction"
        );
    }
}
