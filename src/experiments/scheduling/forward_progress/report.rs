//! The verdicts, metrics and lane records of `scheduling.forward_progress`, from its runs.

use crate::experiments::scheduling::forward_progress::{ForwardProgress, SpinOrder, SpinRun};
use crate::experiments::scheduling::two_order::{ProbeOrder, Runs};
use crate::experiments::scheduling::{Grouping, fraction};
use crate::report::{ExperimentResult, VerdictStatus};
use crate::stats;

/// Totals of one order over its runs.
#[derive(Default)]
struct OrderTally {
    tests: usize,
    progressed: usize,
    at_first_check: usize,
    seen_at: Vec<f64>,
    skipped: usize,
    times_ns: Vec<f64>,
}

fn tally(runs: &[SpinRun]) -> OrderTally {
    let mut t = OrderTally::default();
    for run in runs {
        t.times_ns.push(run.time_ns);
        for s in run.subgroups.values() {
            if !s.is_test() {
                t.skipped += 1;
                continue;
            }
            t.tests += 1;
            if s.progressed() {
                t.progressed += 1;
                let at = s.last_seen_at.unwrap_or(0);
                t.at_first_check += usize::from(at == 0);
                t.seen_at.push(f64::from(at));
            }
        }
    }
    t
}

pub(super) fn report(runs: &Runs<ForwardProgress>, result: &mut ExperimentResult) {
    let (cap, grouping) = (runs.cap, runs.grouping);
    let tallies = runs.tallied(tally);
    let (units, note) = (grouping.units(), grouping.note());
    for (order, t) in &tallies {
        let name = order.entry();
        let later = t.progressed - t.at_first_check;
        let checks = stats::summarize(&t.seen_at).map_or_else(
            || "never seen".to_owned(),
            |s| format!("checks to see it: median {}, max {}", s.median, s.max),
        );
        let skipped = if t.skipped > 0 {
            format!("; {} {units} without both roles skipped", t.skipped)
        } else {
            String::new()
        };
        result.verdict(
            format!("progress_{}", order.entry()),
            format!(
                "{}: spinners see the flag (forward progress; not guaranteed)",
                order.describe()
            ),
            VerdictStatus::NotGuaranteed,
            format!(
                "progress for diverged lanes: observed in {}/{} {units}, capped at {cap} \
                 iterations; at the first check in {}, later in {later} ({checks}){skipped}{note}",
                t.progressed, t.tests, t.at_first_check
            ),
        );
        let counts = [
            (units, t.tests),
            ("progressed", t.progressed),
            ("at_first_check", t.at_first_check),
        ];
        for (key, count) in counts {
            result.metric(&format!("{name}_{key}"), count as f64);
        }
        result.metric(
            &format!("{name}_progress_fraction"),
            fraction(t.progressed, t.tests),
        );
        if let Some(s) = stats::summarize(&t.seen_at) {
            result.metric(&format!("{name}_checks_median"), s.median);
            result.metric(&format!("{name}_checks_max"), s.max);
        }
        if let Some(s) = stats::summarize(&t.times_ns) {
            result.metric(&format!("{name}_dispatch_ns"), s.median);
        }
    }
    result.verdict(
        "pattern",
        "pattern over both orders (not guaranteed)",
        VerdictStatus::NotGuaranteed,
        format!("{}{note}", pattern(&tallies, grouping)),
    );
}

/// What the two orders together say about the scheduler.
fn pattern(t: &[(SpinOrder, OrderTally); 2], grouping: Grouping) -> String {
    let (unit, units) = (grouping.unit(), grouping.units());
    let all = |t: &OrderTally| t.tests > 0 && t.progressed == t.tests;
    let none = |t: &OrderTally| t.progressed == 0;
    let first = |t: &OrderTally| all(t) && t.at_first_check == t.tests;
    let [(_, then), (_, els)] = t;
    let counts = format!(
        "progress in {}/{} {units} with the spinners in the then-branch ({} at the first \
         check), {}/{} with them in the else-branch ({} at the first check)",
        then.progressed,
        then.tests,
        then.at_first_check,
        els.progressed,
        els.tests,
        els.at_first_check
    );
    let reading = if first(els) && none(then) {
        format!(
            "one path ran to its end before the other started, the then-branch first, in every \
             {unit} (as under a reconvergence stack)"
        )
    } else if first(then) && none(els) {
        format!(
            "one path ran to its end before the other started, the else-branch first, in every \
             {unit}"
        )
    } else if all(then) && all(els) {
        format!(
            "diverged lanes made progress in both orders, in every {unit}: the scheduler \
             interleaves the two paths (or runs the setters first whichever side they are on)"
        )
    } else {
        "mixed".to_owned()
    };
    format!("observed: {reading}: {counts}")
}

/// Per order, the first run's subgroups (or blocks) in flag order: the check at which the last
/// spinner saw the flag, or -1 where a spinner never saw it; and, with subgroups, the
/// `subgroup_size` values the records show.
pub(super) fn record_subgroups(
    by_order: &[Vec<SpinRun>; 2],
    grouping: Grouping,
    result: &mut ExperimentResult,
) {
    let mut per_subgroup = serde_json::Map::new();
    let mut sizes: Vec<u32> = Vec::new();
    for (order, runs) in SpinOrder::ALL.iter().zip(by_order) {
        let Some(run) = runs.first() else { continue };
        let seen: Vec<i64> = run
            .subgroups
            .values()
            .filter(|s| s.is_test())
            .map(|s| match (s.progressed(), s.last_seen_at) {
                (true, Some(at)) => i64::from(at),
                _ => -1,
            })
            .collect();
        per_subgroup.insert(order.entry().to_owned(), seen.into());
        sizes.extend(run.records.iter().filter(|r| r.role != 0).map(|r| r.size));
    }
    sizes.sort_unstable();
    sizes.dedup();
    let key = format!("per_{}_run0", grouping.unit());
    result.param(&key, serde_json::Value::Object(per_subgroup));
    if grouping == Grouping::Subgroups {
        result.param("subgroup_sizes", sizes);
    }
}
