//! What a divergent branch costs on this adapter (`divlab profile --cost`), without a device:
//! which branches get a variant ([`candidates`]), the variants' text ([`variant`]), the cost
//! model's prediction from the counted variant ([`dropped_executions`], [`priced_ns`]), how far
//! a variant moved the work outside its branch ([`outside_change`]), and the verdict from the
//! timed pairs ([`judge`]).
//! `run/cost.rs` makes and runs the variants.

pub mod variant;

use std::ops::Range;

use crate::profile::report::{BranchCost, BranchProfile, CostVerdict, Estimate, LineProfile};
use crate::stats::{Interval, median_interval};

/// Below this share of divergent evaluations a branch is `not_divergent` and gets no variant.
pub const MIN_DIVERGENT_FRACTION: f64 = 0.01;

/// Above this change in the lanes run outside the branch, a variant is `confounded`.
pub const MAX_OUTSIDE_CHANGE: f64 = 0.01;

/// The default `--cost-top`: branches measured, by idle lane slots.
pub const DEFAULT_COST_TOP: usize = 5;

/// On a coarse timer, timed on one buffer placement, a saving of fewer steps than this is
/// within noise, whatever its interval over the run's rounds: on the H200 and the H100 (32 ns
/// steps), savings of up to 10 steps held within one run and moved in the next, and moved as
/// far between placements of one run (docs/findings.md).
pub const FEW_TIMER_STEPS: f64 = 11.0;

/// On a coarse timer, timed on several placements, a saving of fewer steps than this can be the
/// rounding of the readings alone: a duration is two readings, each rounded to a step, and a
/// saving two durations, so a saving of nothing reads up to one step either way.
pub const RESOLUTION_STEPS: f64 = 2.0;

/// The default `--cost-placements`: buffer placements each timed pair runs on.
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
/// not run on the lines of a branch whose statement spans `region`, its header line aside: Σ
/// (the original's executions − the variant's). Divergent paths serialize, so a subgroup pays
/// a line's W lane slots whichever lanes are active: agreeing, it drops the side its first
/// lane did not take, and where that side is empty (an `if (lid == 0u)` without an `else`) it
/// saves nothing, however many lanes idled. Negative where the variant runs more (lanes that
/// follow another lane into a loop).
pub fn dropped_executions(
    original: &[LineProfile],
    variant: &[LineProfile],
    region: &Range<u32>,
) -> i64 {
    // The original's lines only: the variant is counted without the analysis that leaves out
    // the lines of no statement, so blank lines inside its blocks are listed too.
    let inside = original
        .iter()
        .filter(|l| l.line > region.start && l.line < region.end);
    let as_signed = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    inside
        .map(|line| {
            let after = counterpart(variant, line);
            as_signed(line.executions) - after.map_or(0, |v| as_signed(v.executions))
        })
        .sum()
}

/// The variant's row for the original's `line`, by line number (the variant keeps every line
/// where it was); `None` where the variant counted nothing there.
fn counterpart<'a>(variant: &'a [LineProfile], line: &LineProfile) -> Option<&'a LineProfile> {
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

/// How far the variant's work outside `region` moved from the original's: the larger of Σ |Δ
/// lanes| / Σ lanes and Σ |Δ executions| / Σ executions over the original's lines outside it.
/// Both, because lanes whose trips change can leave a line's lane total as it was while the
/// subgroups run more or fewer trips (Collatz's lanes, sent down another lane's side, still
/// reach 1, in about as many steps in all). Lines the variant added (its helper, after the
/// last line) are not compared.
pub fn outside_change(
    original: &[LineProfile],
    variant: &[LineProfile],
    region: &Range<u32>,
) -> f64 {
    let lanes = |l: &LineProfile| l.active_lanes.unwrap_or(l.executions) as f64;
    let executions = |l: &LineProfile| l.executions as f64;
    let moved = |count: &dyn Fn(&LineProfile) -> f64| {
        let (mut moved, mut total) = (0.0, 0.0);
        for line in original.iter().filter(|l| !region.contains(&l.line)) {
            let after = counterpart(variant, line).map_or(0.0, count);
            moved += (after - count(line)).abs();
            total += count(line);
        }
        if total > 0.0 { moved / total } else { 0.0 }
    };
    moved(&lanes).max(moved(&executions))
}

/// The verdict on a branch from its timed pair on each buffer placement (`placements`), paired
/// by round: `placebo` (each lane decides) minus `uniform` (the first active lane decides for
/// the subgroup) is the saving. Where the buffers lie moves a saving by a few timer steps on
/// NVIDIA, the same in every run, which one placement's rounds cannot show: the interval spans
/// every placement's.
pub fn judge(
    placements: &[(&[f64], &[f64])],
    outside: f64,
    predicted: Option<Estimate>,
) -> BranchCost {
    let per_placement: Vec<Vec<f64>> = (placements.iter())
        .map(|(placebo, uniform)| placebo.iter().zip(*uniform).map(|(p, u)| p - u).collect())
        .collect();
    let diffs = per_placement.concat();
    let saved = crate::stats::summarize(&diffs).map(|s| s.median);
    let interval = (per_placement.iter().map(|d| median_interval(d)))
        .collect::<Option<Vec<_>>>()
        .and_then(|intervals| {
            intervals.into_iter().reduce(|a, b| Interval {
                low: a.low.min(b.low),
                high: a.high.max(b.high),
            })
        });
    // Each round's saving over its own placebo time: the share holds up under drift in the
    // machine's speed better than a median over another kernel's median.
    let shares: Vec<f64> = (placements.iter())
        .flat_map(|(placebo, uniform)| placebo.iter().zip(*uniform))
        .map(|(p, u)| (p - u) / p)
        .filter(|s| s.is_finite())
        .collect();
    let fraction = crate::stats::summarize(&shares).map(|s| s.median);
    // On a coarse timer a saving of a few steps is decided against a band, not zero: the
    // readings' rounding, and with one placement what moves between placements too.
    let step = timer_step(placements.iter().flat_map(|(p, u)| p.iter().chain(*u)));
    let band_steps = if placements.len() > 1 {
        RESOLUTION_STEPS
    } else {
        FEW_TIMER_STEPS
    };
    let band = step.map_or(0.0, |step| band_steps * step);
    let (verdict, reason) = match (saved, interval) {
        _ if outside > MAX_OUTSIDE_CHANGE => (
            CostVerdict::Confounded,
            format!(
                "with the subgroup's first lane deciding, the lanes run outside the branch \
                 changed by {:.1}%: the branch's result steers later work, so the time moved \
                 for more than the divergence",
                outside * 100.0
            ),
        ),
        (Some(_), Some(i)) if i.high < 0.0 && i.high <= -band => (
            CostVerdict::Confounded,
            "the variant ran slower (the interval lies below zero): either the first lane's \
             path costs more than the mix the lanes took, or the machine's speed drifted \
             between them; either way it is not the divergence's saving (rerun with more \
             --reps to tell)"
                .to_owned(),
        ),
        (Some(_), Some(i)) if i.low > 0.0 && i.low >= band => (
            CostVerdict::Serialized,
            "the saving's 95% interval lies above zero".to_owned(),
        ),
        (Some(_), Some(i)) if i.low > 0.0 || i.high < 0.0 => {
            let step = step.unwrap_or(f64::NAN);
            let reason = within_band(i, (step, band_steps), predicted, placements.len());
            (CostVerdict::FreeHere, reason)
        }
        (Some(_), Some(i)) => (CostVerdict::FreeHere, free_reason(i.high, predicted, step)),
        _ => (
            CostVerdict::NotMeasured,
            "too few timed rounds for an interval".to_owned(),
        ),
    };
    BranchCost {
        saved_ns: saved,
        saved_fraction: fraction,
        interval_ns: interval.map(|i| [i.low, i.high]),
        variant_reps: per_placement.first().map_or(0, Vec::len),
        placement_saved_ns: (placements.len() > 1).then(|| {
            per_placement
                .iter()
                .map(|d| crate::stats::median(d))
                .collect()
        }),
        outside_change: Some(outside),
        ..BranchCost::unmeasured(verdict, predicted, reason)
    }
}

/// The step a timer's readings come in, where it is coarse: the greatest common divisor of the
/// readings in whole nanoseconds, where every reading is whole and the divisor is at least 8 ns
/// (the H200's Vulkan timestamps move in 32 ns). `None` for a finer clock (lavapipe's).
fn timer_step<'a>(times: impl IntoIterator<Item = &'a f64>) -> Option<f64> {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let mut step = 0;
    for &t in times {
        if !(t.is_finite() && t >= 0.0 && t.fract() == 0.0) {
            return None;
        }
        step = gcd(step, t as u64);
    }
    (step >= 8).then_some(step as f64)
}

/// Why a saving whose interval leaves out zero but comes within a band of `band_steps` steps of
/// a coarse timer (`step`) is within noise: the readings' rounding ([`RESOLUTION_STEPS`]), and,
/// timed on one placement, what moves between placements and runs ([`FEW_TIMER_STEPS`]).
fn within_band(
    interval: Interval,
    (step, band_steps): (f64, f64),
    predicted: Option<Estimate>,
    placements: usize,
) -> String {
    // The end of the interval nearer zero is what the band holds.
    let near = interval.low.abs().min(interval.high.abs()) / step;
    let model = match predicted {
        // As free_reason: a prediction of a few steps cannot call the paths merged.
        Some(p) if p.ns > interval.high && p.ns >= FEW_TIMER_STEPS * step => format!(
            ", though the model predicted {:.0} steps: the driver may have predicated or merged \
             the paths (a larger --dispatch resolves it)",
            p.ns / step
        ),
        Some(p) => format!(
            ", and the model predicts {:.1} steps: whether the paths serialize is below this \
             timer here (a larger --dispatch helps only where it lengthens the branch's work, \
             not the empty kernel's)",
            p.ns / step
        ),
        None => " (a larger --dispatch may resolve it)".to_owned(),
    };
    let band = if placements > 1 {
        format!(
            "inside the {band_steps:.0} steps the rounding of the readings can make (a saving is \
             two durations, each two readings)"
        )
    } else {
        format!(
            "inside the {band_steps:.0} steps savings have moved by between buffer placements \
             and runs, which one placement cannot show (--cost-placements)"
        )
    };
    let steps = if near.round() == 1.0 { "step" } else { "steps" };
    format!(
        "the saving's 95% interval leaves out zero, but comes within {near:.0} {steps} of it on \
         the timer ({step:.0} ns), {band}: too small to call on this timer{model}"
    )
}

/// Why a saving within noise of zero is so: the model foresaw no more (the variant drops
/// little or no work inside the branch: a side its first lane skips that is empty or cheap), or
/// it foresaw more and the device did not pay it (the driver predicated or merged the paths),
/// or the prediction is too uncertain to tell the two apart: its interval reaches the saving's,
/// or on a coarse timer (`step`) it is only a few steps, which do not repeat between runs.
fn free_reason(high_ns: f64, predicted: Option<Estimate>, step: Option<f64>) -> String {
    let Some(p) = predicted else {
        return "the saving's 95% interval includes zero".to_owned();
    };
    if p.ns <= high_ns {
        "the saving's 95% interval includes zero, as the model predicts: the variant drops no \
         more work inside the branch than the noise, since the side its first lane skips is \
         empty or cheap"
            .to_owned()
    } else if p.interval.is_some_and(|[low, _]| low <= high_ns) {
        "the saving's 95% interval includes zero and reaches the model's prediction's: the \
         kernel's time above the empty kernel's is too noisy here to tell a cheap side from \
         paths the driver merged (a larger --dispatch tells them apart)"
            .to_owned()
    } else if let Some(step) = step.filter(|&step| p.ns < FEW_TIMER_STEPS * step) {
        format!(
            "the saving's 95% interval includes zero, and the model's prediction is {:.1} steps \
             of the timer ({step:.0} ns): too few to tell a cheap side from paths the driver \
             merged (a larger --dispatch tells them apart where it lengthens the branch's work)",
            p.ns / step
        )
    } else {
        "the saving's 95% interval includes zero, below the model's prediction and its \
         interval: the driver predicated or merged the paths"
            .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_prediction_prices_the_executions_the_variant_drops_inside_the_branch() {
        // Following its first lane, each subgroup runs one side: line 6's 10 executions go.
        let mut variant = lines();
        variant[3].executions = 0;
        variant[3].active_lanes = Some(0);
        variant[2].active_lanes = Some(80);
        assert_eq!(dropped_executions(&lines(), &variant, &(3..7)), 10);
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
        assert_eq!(dropped_executions(&lines(), &variant, &(4..5)), 0);
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
        assert_eq!(dropped_executions(&original, &variant, &(3..7)), 0);
        // A variant whose lanes follow another into a longer loop runs more: a negative saving.
        variant[1].executions = 12;
        assert_eq!(dropped_executions(&original, &variant, &(3..7)), -2);
    }

    #[test]
    fn only_lanes_outside_the_branch_count_as_moved_work() {
        let mut variant = lines();
        variant[2].active_lanes = Some(80); // inside: free to change
        assert_eq!(outside_change(&lines(), &variant, &(3..7)), 0.0);
        variant[4].active_lanes = Some(40); // after the branch: 40 of the 160 lanes outside
        let moved = outside_change(&lines(), &variant, &(3..7));
        assert!((moved - 40.0 / 160.0).abs() < 1e-9, "{moved}");
        // The same lanes in more subgroup executions (trips) moved too: 5 of 20.
        let mut variant = lines();
        variant[4].executions = 15;
        let moved = outside_change(&lines(), &variant, &(3..7));
        assert!((moved - 5.0 / 20.0).abs() < 1e-9, "{moved}");
    }

    #[test]
    fn verdicts_follow_the_interval_and_the_work_outside() {
        let placebo = [10.0, 11.0, 10.5, 10.2, 10.8, 10.1, 10.9, 10.4];
        let half: Vec<f64> = placebo.iter().map(|p| p / 2.0).collect();
        let same: Vec<f64> = placebo.iter().rev().copied().collect();
        let saved = judge(&[(&placebo, &half)], 0.0, None);
        assert_eq!(saved.verdict, CostVerdict::Serialized);
        assert!(saved.saved_fraction.unwrap() > 0.4);
        assert_eq!(
            judge(&[(&placebo, &same)], 0.0, None).verdict,
            CostVerdict::FreeHere
        );
        // Within noise: as foreseen, or where the model foresaw a saving the device did not pay.
        let predicted = |ns, interval| Some(Estimate { ns, interval });
        let foreseen = judge(&[(&placebo, &same)], 0.0, predicted(0.0, None));
        assert!(
            foreseen.reason.contains("as the model predicts"),
            "{foreseen:?}"
        );
        let predicated = judge(&[(&placebo, &same)], 0.0, predicted(5.0, Some([4.0, 6.0])));
        assert!(predicated.reason.contains("predicated"), "{predicated:?}");
        assert_eq!(predicated.predicted_interval_ns, Some([4.0, 6.0]));
        // A prediction whose interval reaches the saving's cannot tell the two apart.
        let noisy = judge(&[(&placebo, &same)], 0.0, predicted(5.0, Some([0.1, 9.0])));
        assert!(noisy.reason.contains("too noisy"), "{noisy:?}");
        let moved = judge(&[(&placebo, &half)], 0.05, None);
        assert_eq!(moved.verdict, CostVerdict::Confounded);
        let slower = judge(&[(&half, &placebo)], 0.0, None);
        assert_eq!(slower.verdict, CostVerdict::Confounded);
    }

    /// On a coarse timer, a saving whose interval leaves out zero but lies within a few steps
    /// is within noise (such savings moved between runs); at many steps, or on a fine clock,
    /// the interval decides.
    #[test]
    fn a_saving_within_a_few_timer_steps_is_free_here() {
        // The H200's readings: whole multiples of 32 ns, the variant 5 steps faster.
        let placebo: Vec<f64> = (0..12).map(|i| 4640.0 + 32.0 * f64::from(i % 3)).collect();
        let uniform: Vec<f64> = placebo.iter().map(|p| p - 160.0).collect();
        let few = judge(&[(&placebo, &uniform)], 0.0, None);
        assert_eq!(few.interval_ns, Some([160.0, 160.0]));
        assert_eq!(few.verdict, CostVerdict::FreeHere, "{few:?}");
        assert!(few.reason.contains("within 5 steps of it"), "{few:?}");
        let slower = judge(&[(&uniform, &placebo)], 0.0, None);
        assert_eq!(slower.verdict, CostVerdict::FreeHere, "{slower:?}");
        assert!(slower.reason.contains("within 5 steps of it"), "{slower:?}");
        // Against a prediction of many steps, the device did not pay what the model foresaw.
        let foreseen = Some(Estimate {
            ns: 3200.0,
            interval: None,
        });
        let unpaid = judge(&[(&placebo, &uniform)], 0.0, foreseen);
        assert!(unpaid.reason.contains("predicted 100 steps"), "{unpaid:?}");
        let little = Some(Estimate {
            ns: 176.0,
            interval: None,
        });
        let little = judge(&[(&placebo, &uniform)], 0.0, little);
        assert!(
            little.reason.contains("the model predicts 5.5 steps"),
            "{little:?}"
        );
        // 11 steps and more, or a clock that reads in nanoseconds: the interval decides.
        let far: Vec<f64> = placebo.iter().map(|p| p - 352.0).collect();
        let far = judge(&[(&placebo, &far)], 0.0, None);
        assert_eq!(far.verdict, CostVerdict::Serialized, "{far:?}");
        let far_slower: Vec<f64> = placebo.iter().map(|p| p + 352.0).collect();
        let far_slower = judge(&[(&placebo, &far_slower)], 0.0, None);
        assert_eq!(far_slower.verdict, CostVerdict::Confounded);
        let fine: Vec<f64> = placebo.iter().map(|p| p + 1.0).collect();
        let fine_less: Vec<f64> = fine.iter().map(|p| p - 160.0).collect();
        let fine = judge(&[(&fine, &fine_less)], 0.0, None);
        assert_eq!(fine.verdict, CostVerdict::Serialized);
        assert!(!fine.reason.contains("steps"), "{fine:?}");
        // A prediction of a few steps (the H100's cheap_sides: 38.9 ns against 0 to 32 ns
        // saved) cannot call the paths predicated; one of many steps can.
        let same = placebo.clone();
        let predicted = |ns: f64| {
            Some(Estimate {
                ns,
                interval: Some([ns, ns]),
            })
        };
        let tiny = judge(&[(&placebo, &same)], 0.0, predicted(38.9));
        assert_eq!(tiny.verdict, CostVerdict::FreeHere);
        assert!(
            tiny.reason.contains("1.2 steps of the timer (32 ns)"),
            "{tiny:?}"
        );
        let large = judge(&[(&placebo, &same)], 0.0, predicted(3200.0));
        assert!(large.reason.contains("predicated"), "{large:?}");
        assert_eq!(timer_step(&[4640.0, 4672.0, 4480.0]), Some(32.0));
        assert_eq!(timer_step(&[4641.0, 4672.0]), None);
        assert_eq!(timer_step(&[4640.5]), None);
    }

    /// Timed on several placements, the interval spans them all, and a coarse timer's band
    /// is only its rounding: a saving every placement shows is called at a few steps, one a
    /// placement does not show is not, and one or two steps are the readings' rounding.
    #[test]
    fn placements_widen_the_interval_and_narrow_the_band() {
        let placebo: Vec<f64> = (0..12).map(|i| 4640.0 + 32.0 * f64::from(i % 3)).collect();
        let less = |ns: f64| -> Vec<f64> { placebo.iter().map(|p| p - ns).collect() };
        let (high, low, none) = (less(288.0), less(160.0), less(0.0));
        let both = judge(&[(&placebo, &high), (&placebo, &low)], 0.0, None);
        assert_eq!(both.verdict, CostVerdict::Serialized, "{both:?}");
        assert_eq!(both.interval_ns, Some([160.0, 288.0]));
        assert_eq!(both.placement_saved_ns, Some(vec![288.0, 160.0]));
        assert_eq!(both.variant_reps, 12);
        // The same 160 ns on one placement is inside the band of what moves between them.
        let alone = judge(&[(&placebo, &low)], 0.0, None);
        assert_eq!(alone.verdict, CostVerdict::FreeHere, "{alone:?}");
        assert_eq!(alone.placement_saved_ns, None);
        // A placement that saves nothing brings the interval to zero.
        let one_not = judge(&[(&placebo, &high), (&placebo, &none)], 0.0, None);
        assert_eq!(one_not.verdict, CostVerdict::FreeHere, "{one_not:?}");
        // One step on every placement: the rounding of the readings.
        let step = less(32.0);
        let rounding = judge(&[(&placebo, &step), (&placebo, &step)], 0.0, None);
        assert_eq!(rounding.verdict, CostVerdict::FreeHere, "{rounding:?}");
        assert!(
            rounding.reason.contains("within 1 step of it"),
            "{rounding:?}"
        );
        assert!(rounding.reason.contains("rounding"), "{rounding:?}");
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
