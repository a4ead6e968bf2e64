//! The verdict's rules on made-up timed pairs: each band, interval and reason.

use super::*;

/// A variant's change, with no second run of the kernel counted.
fn unrepeated(variant: f64) -> OutsideChange {
    OutsideChange {
        variant,
        repeat: None,
    }
}

fn first_lane(
    placements: &[(&[f64], &[f64])],
    outside: f64,
    predicted: Option<Estimate>,
) -> BranchCost {
    judge(
        placements,
        unrepeated(outside),
        predicted,
        Counterfactual::FirstLane,
    )
}

#[test]
fn a_clause_evaluated_in_every_lane_reads_as_the_short_circuit_paying_or_not() {
    let eager = |placebo: &[f64], uniform: &[f64], outside: f64| {
        judge(
            &[(placebo, uniform)],
            unrepeated(outside),
            None,
            Counterfactual::Eager,
        )
    };
    let placebo = [10.0, 11.0, 10.5, 10.2, 10.8, 10.1, 10.9, 10.4];
    let double: Vec<f64> = placebo.iter().map(|p| p * 2.0).collect();
    let half: Vec<f64> = placebo.iter().map(|p| p / 2.0).collect();
    let same: Vec<f64> = placebo.iter().rev().copied().collect();
    // Slower in every lane: the short-circuit pays, which is no confound here.
    let pays = eager(&placebo, &double, 0.0);
    assert_eq!(pays.verdict, CostVerdict::FreeHere, "{pays:#?}");
    assert!(pays.reason.contains("the short-circuit pays"), "{pays:#?}");
    let faster = eager(&placebo, &half, 0.0);
    assert_eq!(faster.verdict, CostVerdict::Serialized, "{faster:#?}");
    assert!(
        faster.reason.contains("`&` or `|` in place of"),
        "{faster:#?}"
    );
    let alike = eager(&placebo, &same, 0.0);
    assert_eq!(alike.verdict, CostVerdict::FreeHere, "{alike:#?}");
    assert!(alike.reason.contains("costs no more"), "{alike:#?}");
    assert_eq!(alike.predicted_ns, None);
    // Its value is the same either way: work that moved outside is the kernel's own.
    let moved = eager(&placebo, &same, 0.2);
    assert_eq!(moved.verdict, CostVerdict::Confounded, "{moved:#?}");
    assert!(moved.reason.contains("same either way"), "{moved:#?}");
}

#[test]
fn verdicts_follow_the_interval_and_the_work_outside() {
    let placebo = [10.0, 11.0, 10.5, 10.2, 10.8, 10.1, 10.9, 10.4];
    let half: Vec<f64> = placebo.iter().map(|p| p / 2.0).collect();
    let same: Vec<f64> = placebo.iter().rev().copied().collect();
    let saved = first_lane(&[(&placebo, &half)], 0.0, None);
    assert_eq!(saved.verdict, CostVerdict::Serialized);
    assert!(saved.saved_fraction.unwrap() > 0.4);
    assert_eq!(
        first_lane(&[(&placebo, &same)], 0.0, None).verdict,
        CostVerdict::FreeHere
    );
    // Within noise: as foreseen, or where the model foresaw a saving the device did not pay.
    let predicted = |ns, interval| Some(Estimate { ns, interval });
    let foreseen = first_lane(&[(&placebo, &same)], 0.0, predicted(0.0, None));
    assert!(
        foreseen
            .reason
            .contains("side its first lane skips is empty"),
        "{foreseen:?}"
    );
    // A saving foreseen but smaller than the noise says so, not that a side is cheap.
    let within = first_lane(&[(&placebo, &same)], 0.0, predicted(0.01, None));
    assert!(within.reason.contains("not decided here"), "{within:?}");
    assert!(!within.reason.contains("empty"), "{within:?}");
    let longer = first_lane(&[(&placebo, &same)], 0.0, predicted(-2.0, None));
    assert!(longer.reason.contains("runs more"), "{longer:?}");
    let predicated = first_lane(&[(&placebo, &same)], 0.0, predicted(5.0, Some([4.0, 6.0])));
    assert!(predicated.reason.contains("predicated"), "{predicated:?}");
    assert_eq!(predicated.predicted_interval_ns, Some([4.0, 6.0]));
    // A prediction whose interval reaches the saving's cannot tell the two apart.
    let noisy = first_lane(&[(&placebo, &same)], 0.0, predicted(5.0, Some([0.1, 9.0])));
    assert!(noisy.reason.contains("too noisy"), "{noisy:?}");
    // Faster, where the variant runs no less inside the branch: not the paths' cost.
    for (ns, says) in [(-2.0, "runs more inside the branch"), (0.0, "is empty")] {
        let unexplained = first_lane(&[(&placebo, &half)], 0.0, predicted(ns, None));
        assert_eq!(
            unexplained.verdict,
            CostVerdict::Confounded,
            "{unexplained:?}"
        );
        assert!(unexplained.reason.contains(says), "{unexplained:?}");
        assert!(unexplained.reason.contains("not the divergent paths' cost"));
    }
    let foreseen = first_lane(&[(&placebo, &half)], 0.0, predicted(4.0, None));
    assert_eq!(foreseen.verdict, CostVerdict::Serialized, "{foreseen:?}");
    assert!(!foreseen.reason.contains("prediction"), "{foreseen:?}");
    // Far above the prediction: the model's average price per slot, and the work outside.
    let beyond = first_lane(
        &[(&placebo, &half)],
        0.008,
        predicted(1.0, Some([0.9, 1.1])),
    );
    assert_eq!(beyond.verdict, CostVerdict::Serialized, "{beyond:?}");
    for says in [
        "x the model's prediction (1 ns), which prices each idle lane slot at the kernel's average",
        "by 0.8% (under the 1% that makes it confounded)",
    ] {
        assert!(beyond.reason.contains(says), "{beyond:?}");
    }
    let moved = first_lane(&[(&placebo, &half)], 0.05, None);
    assert_eq!(moved.verdict, CostVerdict::Confounded);
    let slower = first_lane(&[(&half, &placebo)], 0.0, None);
    assert_eq!(slower.verdict, CostVerdict::Confounded);
}

/// A second counted run of the kernel that moves the work outside the branch too names
/// the kernel's own variation, not the branch, as what confounds it.
#[test]
fn work_the_kernel_moves_on_its_own_is_not_blamed_on_the_branch() {
    let placebo = [10.0, 11.0, 10.5, 10.2, 10.8, 10.1, 10.9, 10.4];
    let half: Vec<f64> = placebo.iter().map(|p| p / 2.0).collect();
    let judged = |variant, repeat, counterfactual| {
        let outside = OutsideChange { variant, repeat };
        judge(&[(&placebo, &half)], outside, None, counterfactual)
    };
    let own = judged(0.05, Some(0.08), Counterfactual::FirstLane);
    assert_eq!(own.verdict, CostVerdict::Confounded, "{own:#?}");
    assert!(
        (own.reason).contains(
            "changed by 5.0% from the nearer of two counted runs of the kernel itself, \
             which differ by 8.0% there"
        ),
        "{own:#?}"
    );
    assert!(!own.reason.contains("steers"), "{own:#?}");
    assert_eq!(own.repeat_change, Some(0.08));
    // A little variation bounds nothing: a spin varies by more in some runs.
    let little = judged(0.05, Some(0.0004), Counterfactual::FirstLane);
    for says in ["differ by <0.1% there", "either the branch's result"] {
        assert!(little.reason.contains(says), "{little:#?}");
    }
    let steady = judged(0.05, Some(0.0), Counterfactual::FirstLane);
    assert!(
        steady.reason.contains("result steers later work"),
        "{steady:#?}"
    );
    let chain = judged(0.05, Some(0.02), Counterfactual::Eager);
    assert!(chain.reason.contains("differ by 2.0% there"), "{chain:#?}");
    assert!(chain.reason.contains("either the clause's"), "{chain:#?}");
    let chain = judged(0.05, Some(0.05), Counterfactual::Eager);
    assert!(chain.reason.contains("cannot be told"), "{chain:#?}");
    // One run that agrees shows no steadiness: the reason names both causes.
    let chain = judged(0.05, Some(0.0), Counterfactual::Eager);
    assert!(chain.reason.contains("a store or an atomic"), "{chain:#?}");
    assert!(chain.reason.contains("only at times"), "{chain:#?}");
    // A variant that moved nothing is judged on its timing, however the kernel varies.
    let timed = judged(0.0, Some(0.08), Counterfactual::FirstLane);
    assert_eq!(timed.verdict, CostVerdict::Serialized, "{timed:#?}");
}

/// On a coarse timer, a saving whose interval leaves out zero but lies within a few steps
/// is within noise (such savings moved between runs); at many steps, or on a fine clock,
/// the interval decides.
#[test]
fn a_saving_within_a_few_timer_steps_is_free_here() {
    // The H200's readings: whole multiples of 32 ns, the variant 5 steps faster.
    let placebo: Vec<f64> = (0..12).map(|i| 4640.0 + 32.0 * f64::from(i % 3)).collect();
    let uniform: Vec<f64> = placebo.iter().map(|p| p - 160.0).collect();
    let few = first_lane(&[(&placebo, &uniform)], 0.0, None);
    assert_eq!(few.interval_ns, Some([160.0, 160.0]));
    assert_eq!(few.verdict, CostVerdict::FreeHere, "{few:?}");
    assert!(few.reason.contains("within 5 steps of it"), "{few:?}");
    let slower = first_lane(&[(&uniform, &placebo)], 0.0, None);
    assert_eq!(slower.verdict, CostVerdict::FreeHere, "{slower:?}");
    assert!(slower.reason.contains("within 5 steps of it"), "{slower:?}");
    // Against a prediction of many steps, the device did not pay what the model foresaw.
    let foreseen = Some(Estimate {
        ns: 3200.0,
        interval: None,
    });
    let unpaid = first_lane(&[(&placebo, &uniform)], 0.0, foreseen);
    assert!(unpaid.reason.contains("predicted 100 steps"), "{unpaid:?}");
    let little = Some(Estimate {
        ns: 176.0,
        interval: None,
    });
    let little = first_lane(&[(&placebo, &uniform)], 0.0, little);
    assert!(
        little.reason.contains("the model predicts 5.5 steps"),
        "{little:?}"
    );
    // 11 steps and more, or a clock that reads in nanoseconds: the interval decides.
    let far: Vec<f64> = placebo.iter().map(|p| p - 352.0).collect();
    let far = first_lane(&[(&placebo, &far)], 0.0, None);
    assert_eq!(far.verdict, CostVerdict::Serialized, "{far:?}");
    let far_slower: Vec<f64> = placebo.iter().map(|p| p + 352.0).collect();
    let far_slower = first_lane(&[(&placebo, &far_slower)], 0.0, None);
    assert_eq!(far_slower.verdict, CostVerdict::Confounded);
    let fine: Vec<f64> = placebo.iter().map(|p| p + 1.0).collect();
    let fine_less: Vec<f64> = fine.iter().map(|p| p - 160.0).collect();
    let fine = first_lane(&[(&fine, &fine_less)], 0.0, None);
    assert_eq!(fine.verdict, CostVerdict::Serialized);
    assert!(!fine.reason.contains("steps"), "{fine:?}");
    // Under half the prediction, the one cause measured is named; at half, nothing.
    let short = |ns| {
        let less: Vec<f64> = placebo.iter().map(|p| p - 352.0).collect();
        first_lane(
            &[(&placebo, &less)],
            0.0,
            Some(Estimate { ns, interval: None }),
        )
        .reason
    };
    assert!(short(1600.0).contains("it is 22% of the model's prediction (1.6 µs)"));
    assert!(!short(704.0).contains("prediction"));
    // A prediction of a few steps (the H100's cheap_sides: 38.9 ns against 0 to 32 ns
    // saved) cannot call the paths predicated; one of many steps can.
    let same = placebo.clone();
    let predicted = |ns: f64| {
        Some(Estimate {
            ns,
            interval: Some([ns, ns]),
        })
    };
    let tiny = first_lane(&[(&placebo, &same)], 0.0, predicted(38.9));
    assert_eq!(tiny.verdict, CostVerdict::FreeHere);
    assert!(
        tiny.reason.contains("1.2 steps of the timer (32 ns)"),
        "{tiny:?}"
    );
    let large = first_lane(&[(&placebo, &same)], 0.0, predicted(3200.0));
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
    let both = first_lane(&[(&placebo, &high), (&placebo, &low)], 0.0, None);
    assert_eq!(both.verdict, CostVerdict::Serialized, "{both:?}");
    assert_eq!(both.interval_ns, Some([160.0, 288.0]));
    assert_eq!(both.placement_saved_ns, Some(vec![288.0, 160.0]));
    assert_eq!(both.variant_reps, 12);
    // 5 steps is within a run's shift of the band: the reason says another run may differ.
    assert!(
        (both.reason).contains("its low end 5 steps of the timer (32 ns), 3 above the band of 2"),
        "{both:?}"
    );
    let far = less(320.0);
    let clear = first_lane(&[(&placebo, &far), (&placebo, &far)], 0.0, None);
    assert_eq!(clear.reason, "the saving's 95% interval lies above zero");
    // The same 160 ns on one placement is inside the band of what moves between them.
    let alone = first_lane(&[(&placebo, &low)], 0.0, None);
    assert_eq!(alone.verdict, CostVerdict::FreeHere, "{alone:?}");
    assert_eq!(alone.placement_saved_ns, None);
    // A placement that saves nothing brings the interval to zero.
    // and where another placement's own interval lies clear of it, the reason says the
    // placement decided, with each one's saving.
    let one_not = first_lane(&[(&placebo, &high), (&placebo, &none)], 0.0, None);
    assert_eq!(one_not.verdict, CostVerdict::FreeHere, "{one_not:?}");
    assert!(
        (one_not.reason).starts_with("1 of 2 buffer placements saved time (288 ns: "),
        "{one_not:?}"
    );
    assert!(
        (one_not.reason).contains("its 95% interval above zero"),
        "{one_not:?}"
    );
    assert!(
        (one_not.reason).contains("1 other's interval lies wholly below it (0 ns)"),
        "{one_not:?}"
    );
    assert!(
        one_not.reason.contains("beyond 2 timer steps"),
        "{one_not:?}"
    );
    // On a fine clock, one noisy placement's interval that clears zero while another's
    // does not is as likely chance, whether or not they overlap.
    let fine: Vec<f64> = (0..12).map(|i| 5000.5 + 40.0 * f64::from(i % 4)).collect();
    let by = |shift: f64| -> Vec<f64> {
        let wobble = |i: usize| 40.0 * ((i * 7 % 5) as f64 - 2.0);
        (fine.iter().enumerate())
            .map(|(i, p)| p - shift - wobble(i))
            .collect()
    };
    let (clears, below) = (by(90.0), by(-60.0));
    let alone = first_lane(&[(&fine, &clears)], 0.0, None);
    assert_eq!(alone.verdict, CostVerdict::Serialized, "{alone:?}");
    let noisy = first_lane(&[(&fine, &clears), (&fine, &below)], 0.0, None);
    let [low, high] = noisy.interval_ns.unwrap();
    assert!(low < 0.0 && high > 0.0, "{noisy:?}");
    assert_eq!(noisy.verdict, CostVerdict::FreeHere, "{noisy:?}");
    assert!(!noisy.reason.contains("placements"), "{noisy:?}");
    // One step on every placement: the rounding of the readings.
    let step = less(32.0);
    let rounding = first_lane(&[(&placebo, &step), (&placebo, &step)], 0.0, None);
    assert_eq!(rounding.verdict, CostVerdict::FreeHere, "{rounding:?}");
    assert!(
        rounding.reason.contains("within 1 step of it"),
        "{rounding:?}"
    );
    assert!(rounding.reason.contains("rounding"), "{rounding:?}");
}
