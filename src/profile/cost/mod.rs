//! What a divergent branch costs on this adapter (`divlab profile --cost`), without a device:
//! which branches get a variant ([`candidates`]), the variants' text ([`variant`]; [`exits`]:
//! the code an `if` that continues, breaks or returns skips, its `else` in all but name), the
//! cost model's prediction from the counted variant ([`dropped_executions`], [`priced_ns`]), how far
//! a variant moved the work outside its branch ([`outside_change`]), and the verdict from the
//! timed pairs ([`judge`]).
//! `run/cost.rs` makes and runs the variants.

pub mod chain;
pub mod exits;
mod judge;
pub mod variant;

pub use judge::{FEW_TIMER_STEPS, RESOLUTION_STEPS, RUN_SHIFT_STEPS, judge};

use std::ops::Range;

use crate::profile::report::{BranchProfile, CostVerdict, Estimate, LineProfile};
use crate::report::units::format_ns;

/// What a branch's variant does in place of the divergence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counterfactual {
    /// Each subgroup takes the path its first active lane takes (an `if` or `switch` of the
    /// text: [`variant`]).
    FirstLane,
    /// Every lane evaluates the next clause of a short-circuit chain, as `&` or `|` would
    /// ([`chain`]): the results stay as they were, so the model predicts no saving.
    Eager,
}

impl Counterfactual {
    /// The variant, as a phrase that opens a reason.
    pub fn doing(self) -> &'static str {
        match self {
            Self::FirstLane => "with the subgroup's first lane deciding",
            Self::Eager => "with every lane evaluating the next clause",
        }
    }
}

/// Below this share of divergent evaluations a branch is `not_divergent` and gets no variant.
pub const MIN_DIVERGENT_FRACTION: f64 = 0.01;

/// Above this change in the lanes run outside the branch, a variant is `confounded`.
pub const MAX_OUTSIDE_CHANGE: f64 = 0.01;

/// The most a variant's placebo (each lane deciding, through the variant's code) may run over
/// the kernel alone before the reason says that the saving is in the variant's time: over 15
/// measured branches of public kernels (lavapipe and an H100), the placebo ran 0.88–1.18x the
/// kernel alone in 8, and 1.74–2.85x in the 7 of three kernels whose decision sits in a short
/// loop (a Mandelbrot escape test, a light-culling loop, a radix tree's search), where a
/// saving came to as much as 2.6 times the kernel's whole time: the variant's control at each
/// decision (a subgroup broadcast and a load) weighs on every trip, the trips the saving drops
/// included.
pub const MAX_CONTROL_OVERHEAD: f64 = 1.5;

/// Where a pair saved time (`fraction`, each round's saving over its placebo, above 0) and its
/// placebo ran `placebo_ns` against the kernel alone's `kernel_ns` past
/// [`MAX_CONTROL_OVERHEAD`]: that the saving is in the variant's time, and about what it is in
/// the kernel's, as the same share of it. Not for a `confounded` saving, which is not the
/// branch's to put in either time.
pub fn control_overhead(
    placebo_ns: f64,
    kernel_ns: f64,
    (fraction, verdict): (Option<f64>, CostVerdict),
) -> Option<String> {
    let ratio = placebo_ns / kernel_ns;
    let share = fraction.filter(|f| {
        *f > 0.0 && ratio > MAX_CONTROL_OVERHEAD && verdict != CostVerdict::Confounded
    })?;
    Some(format!(
        "the variant's code ran {ratio:.2}x the kernel alone with every lane deciding for itself \
         ({} against {}): its control at the branch (a subgroup broadcast and a load at each \
         decision) weighs on every trip, the ones the saving drops too, so the saving is in that \
         code's time; as the same share of the kernel alone ({:.1}%) it is about {}",
        format_ns(placebo_ns),
        format_ns(kernel_ns),
        share * 100.0,
        format_ns(share * kernel_ns)
    ))
}

/// How far a branch's counted variant moved the work outside the branch ([`outside_change`]),
/// beside how far a second counted run of the kernel itself moved it over the same lines: a
/// kernel whose counts follow a spin or the order of its atomics moves it on its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutsideChange {
    /// The variant's change from the nearer of the kernel's counted runs.
    pub variant: f64,
    /// The kernel's own, between its two counted runs: `None` where the second run could not
    /// be counted.
    pub repeat: Option<f64>,
}

impl OutsideChange {
    /// How far `variant` moved the work outside `region` from the nearer of the kernel's counted
    /// runs (`original`, and `repeat` where it was counted again, on the original's lines), and
    /// how far those two are apart. The nearer, since a spin's first run can differ from every
    /// later one alike (on an H100, the variants and the second run of `chained_scan_spin` each
    /// moved 1.3% from its first run, in each of three profiles): a variant that counts as one
    /// of the kernel's own runs moved nothing the kernel does not.
    pub fn measure(
        original: &[LineProfile],
        repeat: Option<&[LineProfile]>,
        variant: &[LineProfile],
        region: &[Range<u32>],
    ) -> Self {
        let from_original = outside_change(original, variant, region);
        Self {
            variant: repeat.map_or(from_original, |repeat| {
                from_original.min(outside_change(repeat, variant, region))
            }),
            repeat: repeat.map(|repeat| outside_change(original, repeat, region)),
        }
    }
}

/// The default `--cost-top`: branches measured, by idle lane slots.
pub const DEFAULT_COST_TOP: usize = 5;

/// The default `--cost-placements`: buffer placements each timed pair runs on (on an H100,
/// eight left as many verdicts moving between runs as three: docs/findings.md).
pub const DEFAULT_COST_PLACEMENTS: usize = 3;

/// The most `--cost-placements`: each holds the kernel's buffers once more.
pub const MAX_COST_PLACEMENTS: usize = 8;

/// The branches that get a variant, as indices into `branches`: the `if`s and `switch`es
/// divergent in at least [`MIN_DIVERGENT_FRACTION`] of their evaluations, the `top` with the
/// most idle lane slots.
pub fn candidates(branches: &[BranchProfile], top: usize) -> Vec<usize> {
    let mut divergent: Vec<usize> = (0..branches.len())
        .filter(|&i| {
            let b = &branches[i];
            b.kind != "loop" && b.divergent_fraction.unwrap_or(0.0) >= MIN_DIVERGENT_FRACTION
        })
        .collect();
    divergent.sort_by_key(|&i| std::cmp::Reverse(branches[i].wasted_lane_slots.unwrap_or(0)));
    divergent.truncate(top);
    divergent
}

/// The lane slots of every line: Σ executions × W, what the kernel's time is spread over.
fn line_slots(lines: &[LineProfile], width: u32) -> u64 {
    lines.iter().map(|l| l.executions * u64::from(width)).sum()
}

/// The subgroup executions that the variant (each subgroup follows its first active lane) does
/// not run on the lines of a branch whose statement spans `statement`, its header line aside,
/// and of the functions it calls (`calls`, every line): Σ (the original's
/// executions − the variant's). Divergent paths serialize, so a subgroup pays
/// a line's W lane slots whichever lanes are active: agreeing, it drops the side its first
/// lane did not take, and where that side is empty (an `if (lid == 0u)` without an `else`) it
/// saves nothing, however many lanes idled. Negative where the variant runs more (lanes that
/// follow another lane into a loop).
pub fn dropped_executions(
    original: &[LineProfile],
    variant: &[LineProfile],
    statement: &Range<u32>,
    calls: &[Range<u32>],
) -> i64 {
    // The original's lines only: the variant is counted without the analysis that leaves out
    // the lines of no statement, so blank lines inside its blocks are listed too.
    let inside = original.iter().filter(|l| {
        (l.line > statement.start && l.line < statement.end)
            || calls.iter().any(|r| r.contains(&l.line))
    });
    let as_signed = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    inside
        .map(|line| {
            let after = counterpart(variant, line);
            as_signed(line.executions) - after.map_or(0, |v| as_signed(v.executions))
        })
        .sum()
}

/// A share as a percentage to one decimal, a nonzero one below that as `<0.1%`.
pub fn small_percent(share: f64) -> String {
    match share * 100.0 {
        p if p > 0.0 && p < 0.05 => "<0.1%".to_owned(),
        p => format!("{p:.1}%"),
    }
}

/// Whether two counts of a kernel differ on any line of `region`, in executions or lanes.
pub fn differs_on(first: &[LineProfile], again: &[LineProfile], region: &[Range<u32>]) -> bool {
    (first.iter())
        .filter(|l| region.iter().any(|r| r.contains(&l.line)))
        .any(|l| {
            counterpart(again, l)
                .is_none_or(|a| (a.executions, a.active_lanes) != (l.executions, l.active_lanes))
        })
}

/// The variant's row for the original's `line`, by line number (the variant keeps every line
/// where it was); `None` where the variant counted nothing there.
pub(crate) fn counterpart<'a>(
    variant: &'a [LineProfile],
    line: &LineProfile,
) -> Option<&'a LineProfile> {
    variant.iter().find(|v| v.line == line.line)
}

/// The cost model's saving of `slots` lane slots, priced at the kernel's average time per lane
/// slot of a line (`work` / Σ executions × W over `lines`), with the interval `work`'s gives;
/// `work` is the kernel's time above an empty dispatch's, where that was timed.
pub fn priced_ns(
    slots: i64,
    lines: &[LineProfile],
    width: u32,
    work: Estimate,
) -> Option<Estimate> {
    let total = line_slots(lines, width);
    let price = |ns: f64| ns * slots as f64 / total as f64;
    (total > 0 && work.ns.is_finite()).then(|| Estimate {
        ns: price(work.ns),
        // Fewer slots than none (a negative saving) turn the interval around.
        interval: work.interval.map(|[low, high]| {
            let [a, b] = [price(low), price(high)];
            [a.min(b), a.max(b)]
        }),
    })
}

/// A loop's count-based cost: its idle trip slots (lanes that had left while others ran more
/// trips), priced like [`priced_ns`].
pub fn loop_predicted_ns(
    branch: &BranchProfile,
    lines: &[LineProfile],
    width: u32,
    work: Estimate,
) -> Option<Estimate> {
    let (ran, paid) = branch.trip_slots(Some(width))?;
    let idle = i64::try_from(paid.saturating_sub(ran)).unwrap_or(i64::MAX);
    priced_ns(idle, lines, width, work)
}

/// How far the variant's work outside the lines of `region` moved from the original's: the larger of Σ |Δ
/// lanes| / Σ lanes and Σ |Δ executions| / Σ executions over the original's lines outside it.
/// Both, because lanes whose trips change can leave a line's lane total as it was while the
/// subgroups run more or fewer trips (Collatz's lanes, sent down another lane's side, still
/// reach 1, in about as many steps in all). Lines the variant added (its helper, after the
/// last line) are not compared.
pub fn outside_change(
    original: &[LineProfile],
    variant: &[LineProfile],
    region: &[Range<u32>],
) -> f64 {
    let lanes = |l: &LineProfile| l.active_lanes.unwrap_or(l.executions) as f64;
    let executions = |l: &LineProfile| l.executions as f64;
    let moved = |count: &dyn Fn(&LineProfile) -> f64| {
        let (mut moved, mut total) = (0.0, 0.0);
        let inside = |line: u32| region.iter().any(|r| r.contains(&line));
        for line in original.iter().filter(|l| !inside(l.line)) {
            let after = counterpart(variant, line).map_or(0.0, count);
            moved += (after - count(line)).abs();
            total += count(line);
        }
        if total > 0.0 { moved / total } else { 0.0 }
    };
    moved(&lanes).max(moved(&executions))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A placebo up to 1.5x the kernel alone is the variant's code; past it, the reason gives
    /// both times and a saving in the kernel's time, from its share.
    #[test]
    fn a_placebo_far_slower_than_the_kernel_alone_puts_the_saving_in_the_variants_time() {
        let saved = |fraction| (Some(fraction), CostVerdict::Serialized);
        assert_eq!(control_overhead(1_180.0, 1_000.0, saved(0.5)), None);
        assert_eq!(control_overhead(1_500.0, 1_000.0, saved(0.5)), None);
        let why = control_overhead(73_300.0, 25_700.0, saved(0.915)).expect("2.85x");
        assert!(
            why.starts_with("the variant's code ran 2.85x the kernel alone")
                && why.contains("(73.3 µs against 25.7 µs)")
                && why.ends_with("of the kernel alone (91.5%) it is about 23.5 µs"),
            "{why}"
        );
        // A variant that ran slower saved nothing to put in either time.
        assert_eq!(control_overhead(73_300.0, 25_700.0, saved(-0.1)), None);
        // Nor did one whose saving is not the branch's (it runs no less inside it).
        let unexplained = (Some(0.1), CostVerdict::Confounded);
        assert_eq!(control_overhead(311_200.0, 189_400.0, unexplained), None);
    }

    fn line(line: u32, executions: u64, active_lanes: u64) -> LineProfile {
        LineProfile {
            line,
            executions,
            active_lanes: Some(active_lanes),
            efficiency: None,
            static_verdict: None,
        }
    }

    /// Lines 1–2 before the branch, 3 its header, 4 and 6 its sides half full, 8 after it.
    fn lines() -> Vec<LineProfile> {
        vec![
            line(1, 10, 80),
            line(3, 10, 80),
            line(4, 10, 40),
            line(6, 10, 40),
            line(8, 10, 80),
        ]
    }

    #[test]
    fn a_variant_is_measured_from_the_nearer_of_the_kernels_two_runs() {
        let region = std::slice::from_ref(&(3..7));
        // The second run's line 8 ran 2 more executions of 8 lanes, and the variant's too.
        let mut again = lines();
        again[4] = line(8, 12, 96);
        let moved = OutsideChange::measure(&lines(), Some(&again), &again, region);
        assert_eq!(moved.variant, 0.0);
        assert!(
            (moved.repeat.unwrap() - 16.0 / 160.0).abs() < 1e-9,
            "{moved:?}"
        );
        // Counted once, the variant is measured from that run.
        let once = OutsideChange::measure(&lines(), None, &again, region);
        assert_eq!(once.variant, moved.repeat.unwrap());
        // The nearer run decides: the first, where the variant counted as it did.
        let near_first = OutsideChange::measure(&lines(), Some(&again), &lines(), region);
        assert_eq!(near_first.variant, 0.0);
        // The two runs differ outside the branch, not in it; then in it too.
        assert!(!differs_on(&lines(), &again, region));
        again[2] = line(4, 10, 48);
        assert!(differs_on(&lines(), &again, region));
    }

    #[test]
    fn the_prediction_prices_the_executions_the_variant_drops_inside_the_branch() {
        // Following its first lane, each subgroup runs one side: line 6's 10 executions go.
        let mut variant = lines();
        variant[3].executions = 0;
        variant[3].active_lanes = Some(0);
        variant[2].active_lanes = Some(80);
        assert_eq!(dropped_executions(&lines(), &variant, &(3..7), &[]), 10);
        // 10 × 8 = 80 of the 400 slots of a 1000 ns kernel.
        let work = Estimate {
            ns: 1000.0,
            interval: Some([800.0, 1400.0]),
        };
        let p = priced_ns(80, &lines(), 8, work).unwrap();
        assert!((p.ns - 200.0).abs() < 1e-9, "{p:?}");
        assert_eq!(p.interval, Some([160.0, 280.0]));
        // A negative saving's interval stays low to high.
        let negative = priced_ns(-80, &lines(), 8, work).unwrap();
        assert_eq!(negative.interval, Some([-280.0, -160.0]));
        // The header's own executions are not the branch's.
        assert_eq!(dropped_executions(&lines(), &variant, &(4..5), &[]), 0);
        // The lines of the functions a side calls are the branch's too, every one of them.
        assert_eq!(
            dropped_executions(&lines(), &variant, &(4..5), &[6..7, 20..30]),
            10
        );
        let unknown = Estimate {
            ns: f64::NAN,
            interval: None,
        };
        assert_eq!(priced_ns(80, &lines(), 8, unknown), None);
    }

    #[test]
    fn a_side_no_lane_takes_saves_nothing_however_many_lanes_idle_on_the_other() {
        // Line 4 runs one lane of 8 in each of its 10 executions, and no other side runs: the
        // first lanes of the same subgroups take it again, with all their lanes.
        let original = vec![line(3, 10, 80), line(4, 10, 10), line(8, 10, 80)];
        let mut variant = original.clone();
        variant[1].active_lanes = Some(80);
        assert_eq!(dropped_executions(&original, &variant, &(3..7), &[]), 0);
        // A variant whose lanes follow another into a longer loop runs more: a negative saving.
        variant[1].executions = 12;
        assert_eq!(dropped_executions(&original, &variant, &(3..7), &[]), -2);
    }

    #[test]
    fn only_lanes_outside_the_branch_count_as_moved_work() {
        let mut variant = lines();
        variant[2].active_lanes = Some(80); // inside: free to change
        assert_eq!(
            outside_change(&lines(), &variant, std::slice::from_ref(&(3..7))),
            0.0
        );
        variant[4].active_lanes = Some(40); // after the branch: 40 of the 160 lanes outside
        let moved = outside_change(&lines(), &variant, std::slice::from_ref(&(3..7)));
        assert!((moved - 40.0 / 160.0).abs() < 1e-9, "{moved}");
        // The same lanes in more subgroup executions (trips) moved too: 5 of 20.
        let mut variant = lines();
        variant[4].executions = 15;
        let moved = outside_change(&lines(), &variant, std::slice::from_ref(&(3..7)));
        assert!((moved - 5.0 / 20.0).abs() < 1e-9, "{moved}");
    }

    #[test]
    fn candidates_are_divergent_ifs_and_switches_by_idle_slots() {
        let branch = |kind: &str, divergent: f64, idle: u64| BranchProfile {
            line: 1,
            kind: kind.to_owned(),
            executions: 100,
            divergent: (divergent * 100.0) as u64,
            divergent_fraction: Some(divergent),
            wasted_lane_slots: Some(idle),
            trips: None,
            lane_trips: None,
            left_early: None,
            taken: None,
            not_taken: None,
            cost: None,
            inherited_from: None,
            clause: None,
        };
        let branches = [
            branch("if", 0.5, 10),
            branch("loop", 0.9, 99),
            branch("switch", 0.2, 30),
            branch("if", 0.001, 50),
            branch("if", 0.3, 20),
        ];
        assert_eq!(candidates(&branches, 5), [2, 4, 0]);
        assert_eq!(candidates(&branches, 2), [2, 4]);
    }
}
