//! The verdict on a branch from its timed pairs ([`judge`]): the saving, its interval over
//! every buffer placement, and on a coarse timer the band of steps a saving must clear, with
//! the reason in words.

use super::{Counterfactual, MAX_OUTSIDE_CHANGE, OutsideChange, small_percent};
use crate::profile::report::{BranchCost, CostVerdict, Estimate};
use crate::report::units::format_ns;
use crate::stats::{Interval, median_interval};

/// On a coarse timer, timed on one buffer placement, a saving of fewer steps than this is
/// within noise, whatever its interval over the run's rounds: on the H200 and the H100 (32 ns
/// steps), savings of up to 10 steps held within one run and moved in the next, and moved as
/// far between placements of one run (docs/findings.md).
pub const FEW_TIMER_STEPS: f64 = 11.0;

/// On a coarse timer, timed on several placements, a saving of fewer steps than this can be the
/// rounding of the readings alone: a duration is two readings, each rounded to a step, and a
/// saving two durations, so a saving of nothing reads up to one step either way.
pub const RESOLUTION_STEPS: f64 = 2.0;

/// On a coarse timer, how far a saving moved between runs (processes) whatever the placements:
/// on an H200, `builtins_in_struct_2d` saved 160 ns on all three placements in one run and 0 ns
/// in the next; on an H100 the lane-bit switch 32 ns on six of eight and 160 ns on all eight.
/// A `serialized` saving this near the band says so.
pub const RUN_SHIFT_STEPS: f64 = 5.0;

/// The verdict on a branch from its timed pair on each buffer placement (`placements`), paired
/// by round: `placebo` (each lane decides) minus `uniform` (the first active lane decides for
/// the subgroup) is the saving. Where the buffers lie moves a saving by a few timer steps on
/// NVIDIA, which one placement's rounds cannot show: the interval spans every placement's, and
/// on a coarse timer a saving some placements show and others do not is not called.
pub fn judge(
    placements: &[(&[f64], &[f64])],
    outside: OutsideChange,
    predicted: Option<Estimate>,
    counterfactual: Counterfactual,
) -> BranchCost {
    let eager = counterfactual == Counterfactual::Eager;
    let per_placement: Vec<Vec<f64>> = (placements.iter())
        .map(|(placebo, uniform)| placebo.iter().zip(*uniform).map(|(p, u)| p - u).collect())
        .collect();
    let diffs = per_placement.concat();
    let saved = crate::stats::summarize(&diffs).map(|s| s.median);
    let intervals: Vec<Interval> = (per_placement.iter())
        .map(|d| median_interval(d))
        .collect::<Option<_>>()
        .unwrap_or_default();
    let interval = intervals.iter().copied().reduce(|a, b| Interval {
        low: a.low.min(b.low),
        high: a.high.max(b.high),
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
    let above = |i: &Interval| i.low > 0.0 && i.low >= band;
    let medians: Vec<f64> = per_placement
        .iter()
        .map(|d| crate::stats::median(d))
        .collect();
    // Only a coarse timer's rounds repeat closely enough to tell placements apart: on
    // lavapipe's fine but noisy clock, one of eight placements clears zero and another lies
    // wholly below it by chance.
    let split = step.and_then(|_| placement_split(&intervals, above));
    let (verdict, reason) = match (saved, interval, step, split) {
        _ if outside.variant > MAX_OUTSIDE_CHANGE => (
            CostVerdict::Confounded,
            outside_reason(outside, counterfactual),
        ),
        (Some(_), Some(i), _, _) if eager && i.high < 0.0 && i.high <= -band => (
            CostVerdict::FreeHere,
            "evaluating the next clause in every lane ran slower (the interval lies below \
             zero): the short-circuit pays here, since a subgroup whose lanes all skip the clause \
             skips its work"
                .to_owned(),
        ),
        (Some(_), Some(i), _, _) if i.high < 0.0 && i.high <= -band => (
            CostVerdict::Confounded,
            "the variant ran slower (the interval lies below zero): either the first lane's \
             path costs more than the mix the lanes took, or the machine's speed drifted \
             between them; either way it is not the divergence's saving (rerun with more \
             --reps to tell)"
                .to_owned(),
        ),
        // The variant runs no less inside the branch, yet it ran faster: not the paths' cost.
        (Some(_), Some(i), _, _)
            if above(&i) && !eager && predicted.is_some_and(|p| p.ns <= 0.0) =>
        {
            (
                CostVerdict::Confounded,
                faster_though_no_work_dropped(predicted.map_or(0.0, |p| p.ns)),
            )
        }
        (Some(_), Some(i), _, _) if above(&i) => {
            let near =
                step.filter(|&step| placements.len() > 1 && i.low - band < RUN_SHIFT_STEPS * step);
            let reason = match near {
                Some(step) => near_band(i.low, step, band_steps),
                None => "the saving's 95% interval lies above zero".to_owned(),
            };
            let reason = if eager {
                format!(
                    "{reason}: evaluating the next clause in every lane is faster than the \
                     short-circuit's branch around it (`&` or `|` in place of `&&` or `||`)"
                )
            } else {
                let against_model = short_of_prediction(i, saved, predicted)
                    .or_else(|| beyond_prediction(i, saved, predicted, outside.variant));
                reason + &against_model.unwrap_or_default()
            };
            (CostVerdict::Serialized, reason)
        }
        // Some placements save and others, told apart from them, do not: where the buffers
        // lie decides.
        (Some(_), Some(_), _, Some(split)) => {
            let reason = split_reason(&split, &medians, band_steps);
            (CostVerdict::FreeHere, reason)
        }
        (Some(_), Some(i), Some(step), None) if i.low > 0.0 || i.high < 0.0 => {
            let reason = within_band(i, (step, band_steps), predicted, placements.len());
            (CostVerdict::FreeHere, reason)
        }
        (Some(_), Some(_), _, None) if eager => (
            CostVerdict::FreeHere,
            "the saving's 95% interval includes zero: the short-circuit's branch costs no more \
             than evaluating the next clause in every lane (the compiler may evaluate it without \
             a branch already)"
                .to_owned(),
        ),
        (Some(_), Some(i), _, None) => (CostVerdict::FreeHere, free_reason(i, predicted, step)),
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
        placement_saved_ns: (placements.len() > 1).then_some(medians),
        outside_change: Some(outside.variant),
        repeat_change: outside.repeat,
        ..BranchCost::unmeasured(verdict, predicted, reason)
    }
}

/// Why a variant that moved the work outside its branch (or chain) is `confounded`: the branch's
/// result steers later work, unless a second run of the kernel itself moved it as far (its
/// counts vary between runs), or the chain's value, the same either way, cannot have. One
/// second run bounds nothing: a spin's counts vary by 1% in one run and 80% in the next
/// (lavapipe), so a smaller move of its own names both causes.
fn outside_reason(outside: OutsideChange, counterfactual: Counterfactual) -> String {
    let eager = counterfactual == Counterfactual::Eager;
    let moved = format!(
        "{}, the lanes run outside the {} changed by {:.1}%",
        counterfactual.doing(),
        if eager { "chain" } else { "branch" },
        outside.variant * 100.0
    );
    // Measured from the nearer of two runs that differ: say so first.
    let from_runs = |own: f64| {
        format!(
            " from the nearer of two counted runs of the kernel itself, which differ by {} there",
            small_percent(own)
        )
    };
    let why = match outside.repeat {
        Some(own) if own >= outside.variant => format!(
            "{}: its counts vary between runs (a spin, the order of atomics), so what the \
             variant moved cannot be told from what the kernel moves on its own",
            from_runs(own)
        ),
        // A spin varies by more in some runs than in others: less than the variant moved
        // bounds nothing.
        Some(own) if own > 0.0 => format!(
            "{}: its counts vary between runs (a spin, the order of atomics), by more in some \
             than in others, so either the {} steers later work or the kernel moved it on its \
             own",
            from_runs(own),
            if eager {
                "clause's evaluation"
            } else {
                "branch's result"
            }
        ),
        Some(_) if eager => ", though its value is the same either way: evaluating the clause \
                             where the short-circuit skipped it changes later work (a store or \
                             an atomic in it), or the kernel's counts vary between runs only at \
                             times (a spin; a second counted run of it agreed there)"
            .to_owned(),
        None if eager => ", though its value is the same either way: the kernel's own counts \
                          vary between runs (a spin, the order of atomics), so the time moved \
                          for more than the branch"
            .to_owned(),
        _ => ": the branch's result steers later work, so the time moved for more than the \
              divergence"
            .to_owned(),
    };
    moved + &why
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

/// Why a `serialized` saving whose interval starts at `low`, fewer than [`RUN_SHIFT_STEPS`]
/// above the band of `band_steps` timer steps, may not repeat.
fn near_band(low: f64, step: f64, band_steps: f64) -> String {
    format!(
        "the saving's 95% interval lies above zero, its low end {:.0} steps of the timer ({step:.0} \
         ns), {:.0} above the band of {band_steps:.0}: savings moved by up to {RUN_SHIFT_STEPS:.0} \
         steps between runs on an H100 and an H200 whatever the placements, so another run may \
         call this one free_here (a larger --dispatch settles it where it lengthens the branch's \
         work)",
        low / step,
        low / step - band_steps,
    )
}

/// Which placements save (`Some(true)`: their interval is `above` the band) and which, told
/// apart from one that saves, do not (`Some(false)`: their interval lies wholly below that
/// one's), `None` for the rest; `None` where no placement saves or none lies below one that
/// does. Only intervals that do not overlap say the placement decided: of eight placements,
/// one's interval can clear zero by chance alone.
fn placement_split(
    intervals: &[Interval],
    above: impl Fn(&Interval) -> bool,
) -> Option<Vec<Option<bool>>> {
    // A placement wholly below any saving one is below the one whose low is highest.
    let saving_low = (intervals.iter().filter(|i| above(i)))
        .map(|i| i.low)
        .reduce(f64::max)?;
    let below = |i: &Interval| !above(i) && i.high < saving_low;
    intervals.iter().any(below).then(|| {
        (intervals.iter())
            .map(|i| (above(i).then_some(true)).or(below(i).then_some(false)))
            .collect()
    })
}

/// Why a saving that some placements show and others, told apart from them, do not (`split`,
/// with each placement's median saving) is not called: the buffers' placement decides it.
fn split_reason(split: &[Option<bool>], medians: &[f64], band_steps: f64) -> String {
    let side = |wanted: bool| -> Vec<String> {
        (split.iter().zip(medians))
            .filter(|(s, _)| **s == Some(wanted))
            .map(|(_, ns)| format!("{ns:.0} ns"))
            .collect()
    };
    let (saving, below) = (side(true), side(false));
    let (its, it) = if saving.len() == 1 {
        ("its 95% interval", "it")
    } else {
        ("their 95% intervals", "them")
    };
    let others = if below.len() == 1 {
        "1 other's interval lies".to_owned()
    } else {
        format!("{} others' intervals lie", below.len())
    };
    format!(
        "{} of {} buffer placements saved time ({}: {its} above zero, beyond {band_steps:.0} \
         timer steps), and {others} wholly below {it} ({}): where the kernel's buffers lie \
         decides whether the paths cost anything here, so no saving is called (another run may \
         place them otherwise)",
        saving.len(),
        split.len(),
        saving.join(", "),
        below.join(", "),
    )
}

/// Where a `serialized` saving's interval lies below half the model's prediction (its low end),
/// the cause measured: the time of a dispatch that does not fill the device follows its slowest
/// subgroups, not its total work (docs/findings.md: an H100's dispatch sweep).
fn short_of_prediction(i: Interval, saved: Option<f64>, p: Option<Estimate>) -> Option<String> {
    let (saved, p) = (saved?, p?);
    let low = p.interval.map_or(p.ns, |[low, _]| low);
    (i.high < 0.5 * low).then(|| {
        format!(
            "; it is {:.0}% of the model's prediction ({}): where the dispatch does not fill the \
             device, the kernel takes as long as its slowest subgroups, so work dropped from the \
             others saves less (on an H100 a loop exit saved 22% of its prediction at 16 \
             workgroups and 89% at 8,192); more workgroups (--dispatch) tell",
            100.0 * saved / p.ns,
            format_ns(p.ns)
        )
    })
}

/// Where a saving's whole interval lies above twice the model's prediction (its interval's
/// top): that the model prices an idle lane slot at the kernel's average, and what else the
/// variant moved. On an H100 a foam spawner's early `return` before a loop of global stores
/// saved 1.44 µs where the model predicted 457 ns.
fn beyond_prediction(
    i: Interval,
    saved: Option<f64>,
    p: Option<Estimate>,
    outside: f64,
) -> Option<String> {
    let (saved, p) = (saved?, p?);
    let high = p.interval.map_or(p.ns, |[_, high]| high);
    (p.ns > 0.0 && i.low > 2.0 * high).then(|| {
        let moved = if outside > 0.0 {
            format!(
                ", or the variant moved the work outside the branch, by {} (under the 1% that \
                 makes it confounded)",
                small_percent(outside)
            )
        } else {
            String::new()
        };
        format!(
            "; it is {:.1}x the model's prediction ({}), which prices each idle lane slot at the \
             kernel's average: lines that cost more than that (memory stores, atomics) save \
             more than it foresees{moved}",
            saved / p.ns,
            format_ns(p.ns)
        )
    })
}

/// Why a variant that ran faster, though the model has it running no less inside its branch
/// (`predicted_ns` at most 0), is `confounded`: the divergent paths serializing cannot save
/// time where the variant drops none of their work. On an H100, two decisions of a top-k
/// sampler whose variant ran 92 ns and 3.5 µs more saved 352 ns and 64 ns.
fn faster_though_no_work_dropped(predicted_ns: f64) -> String {
    let foreseen = if predicted_ns < 0.0 {
        format!(
            "it runs more inside the branch ({} more, as the lanes that follow the first one \
             take the longer path)",
            format_ns(-predicted_ns)
        )
    } else {
        "it drops no work inside the branch (the side its first lane skips is empty)".to_owned()
    };
    format!(
        "the variant ran faster (the saving's 95% interval lies above zero), though the model \
         says {foreseen}: the saving is not the divergent paths' cost but another change the \
         variant made, in how the driver compiled or scheduled its code (the first lane's \
         decision, broadcast at each evaluation), or noise the interval missed (rerun with more \
         --reps)"
    )
}

/// Why a saving within noise of zero is so: the model foresaw none (the variant drops no work
/// inside the branch: the side its first lane skips is empty), or less than the noise of this
/// run can tell from zero (too little work inside the branch, or too noisy a machine: not a
/// cheap side by itself), or it foresaw more and the device did not pay it (the driver
/// predicated or merged the paths), or the prediction is too uncertain to tell the two apart:
/// its interval reaches the saving's, or on a coarse timer (`step`) it is only a few steps,
/// which do not repeat between runs.
fn free_reason(interval: Interval, predicted: Option<Estimate>, step: Option<f64>) -> String {
    let Some(p) = predicted else {
        return "the saving's 95% interval includes zero".to_owned();
    };
    if p.ns == 0.0 {
        "the saving's 95% interval includes zero, as the model predicts: the variant drops no \
         work inside the branch, since the side its first lane skips is empty"
            .to_owned()
    } else if p.ns < 0.0 {
        format!(
            "the saving's 95% interval includes zero, and the model predicts none: the variant \
             runs more inside the branch ({} more), as the lanes that follow the first one take \
             the longer path",
            format_ns(-p.ns)
        )
    } else if p.ns <= interval.high {
        format!(
            "the saving's 95% interval includes zero and the model's prediction ({}): this \
             run's noise (an interval {} wide) cannot tell that little work inside the branch \
             from none, so whether the paths serialize is not decided here (a larger --dispatch \
             tells where it lengthens the branch's work)",
            format_ns(p.ns),
            format_ns(interval.high - interval.low),
        )
    } else if p.interval.is_some_and(|[low, _]| low <= interval.high) {
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
#[path = "judge_tests.rs"]
mod tests;
