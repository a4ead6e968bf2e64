//! The verdicts, metrics and lane records of `scheduling.handshake`, from its runs.

use crate::experiments::scheduling::handshake::{Handshake, HandshakeOrder, HandshakeRun, Outcome};
use crate::experiments::scheduling::two_order::{ProbeOrder, Runs};
use crate::experiments::scheduling::{Grouping, fraction};
use crate::report::{ExperimentResult, VerdictStatus};
use crate::stats;

/// Totals of one order over its runs.
#[derive(Default)]
struct OrderTally {
    subgroups: usize,
    both: usize,
    a_first: usize,
    b_first: usize,
    a_completed: usize,
    a_capped: usize,
    b_completed: usize,
    b_capped: usize,
    a_checks: Vec<f64>,
    b_checks: Vec<f64>,
    times_ns: Vec<f64>,
}

impl OrderTally {
    fn mixed(&self) -> usize {
        self.subgroups - self.both - self.a_first - self.b_first
    }
}

fn tally(runs: &[HandshakeRun]) -> OrderTally {
    let mut t = OrderTally::default();
    for run in runs {
        t.times_ns.push(run.time_ns);
        for s in run.subgroups.values() {
            t.subgroups += 1;
            match s.outcome() {
                Outcome::Both => t.both += 1,
                Outcome::AFirst => t.a_first += 1,
                Outcome::BFirst => t.b_first += 1,
                Outcome::Mixed => {}
            }
            t.a_completed += usize::from(s.a.completed());
            t.a_capped += usize::from(s.a.capped());
            t.b_completed += usize::from(s.b.completed());
            t.b_capped += usize::from(s.b.capped());
            t.a_checks.push(f64::from(s.a.checks));
            t.b_checks.push(f64::from(s.b.checks));
        }
    }
    t
}

pub(super) fn report(runs: &Runs<Handshake>, result: &mut ExperimentResult) {
    let (cap, grouping) = (runs.cap, runs.grouping);
    let (units, note) = (grouping.units(), grouping.note());
    for (order, t) in &runs.tallied(tally) {
        let name = order.entry();
        let (a_branch, b_branch) = order.branches();
        let median_max = |v: &[f64]| {
            stats::summarize(v).map_or_else(
                || "-".to_owned(),
                |s| format!("a median of {} checks (max {})", s.median, s.max),
            )
        };
        result.verdict(
            format!("both_complete_{}", order.entry()),
            format!(
                "A in the {a_branch}-branch, B in the {b_branch}-branch: both sides of the \
                 handshake complete (forward progress for diverged lanes; not guaranteed)"
            ),
            VerdictStatus::NotGuaranteed,
            format!(
                "both sides completed in {}/{} {units} (A {a_branch}-branch); side A waited \
                 {} and hit the cap in {}, side B waited {} and hit the cap in {}; capped at \
                 {cap} checks. {}{note}",
                t.both,
                t.subgroups,
                median_max(&t.a_checks),
                t.a_capped,
                median_max(&t.b_checks),
                t.b_capped,
                reading(*order, t, grouping)
            ),
        );
        let counts = [
            (units, t.subgroups),
            ("both_completed", t.both),
            ("a_completed", t.a_completed),
            ("a_capped", t.a_capped),
            ("b_completed", t.b_completed),
            ("b_capped", t.b_capped),
            ("a_ran_first", t.a_first),
            ("b_ran_first", t.b_first),
            ("mixed", t.mixed()),
        ];
        for (key, count) in counts {
            result.metric(&format!("{key}_{name}"), count as f64);
        }
        result.metric(
            &format!("both_completed_fraction_{name}"),
            fraction(t.both, t.subgroups),
        );
        for (side, checks) in [("a", &t.a_checks), ("b", &t.b_checks)] {
            if let Some(s) = stats::summarize(checks) {
                result.metric(&format!("{side}_checks_median_{name}"), s.median);
                result.metric(&format!("{side}_checks_max_{name}"), s.max);
            }
        }
        if let Some(s) = stats::summarize(&t.times_ns) {
            result.metric(&format!("dispatch_ns_{name}"), s.median);
        }
    }
}

/// What one order's subgroups (or blocks) say about the scheduler.
fn reading(order: HandshakeOrder, t: &OrderTally, grouping: Grouping) -> String {
    let (a_branch, b_branch) = order.branches();
    let (unit, units) = (grouping.unit(), grouping.units());
    let every = |n: usize| t.subgroups > 0 && n == t.subgroups;
    if every(t.both) {
        format!(
            "Every {unit} completed the handshake: the scheduler interleaved the two diverged \
             paths, each side running while the other waited."
        )
    } else if every(t.a_first) {
        format!(
            "In every {unit} side A spun to its cap before B saw a: the {a_branch}-branch ran \
             to its end before the {b_branch}-branch started, with no progress for the waiting \
             side (as under a reconvergence stack)."
        )
    } else if every(t.b_first) {
        format!(
            "In every {unit} side B gave up before A set a: the {b_branch}-branch ran to its \
             end before the {a_branch}-branch started, with no progress for the waiting side (as \
             under a reconvergence stack)."
        )
    } else {
        format!(
            "Mixed: {} {units} interleaved the paths, {} ran side A ({a_branch}-branch) to its \
             end first, {} side B ({b_branch}-branch), {} neither pattern.",
            t.both,
            t.a_first,
            t.b_first,
            t.mixed()
        )
    }
}
