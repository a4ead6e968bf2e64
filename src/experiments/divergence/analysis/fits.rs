//! The fits over k: linearity of T_div(k) and the flatness of the subgroup-uniform control.

use super::*;

/// The linear and quadratic fits of T_div(k) over k <= SG, and for the loop form the max-path
/// against the sum-of-paths model. `slope_s_ns` and `intercept_ns` fit the raw medians (the
/// floor is the intercept); the verdicts read T_div(k) against the k = 1 control of its round.
pub(super) fn add_fits(
    m: &Measurements,
    within: &[&KPoint],
    ks: &[f64],
    t_div: &[f64],
    result: &mut ExperimentResult,
) {
    let sg = m.subgroup_size;
    // Linearity is judged on T_div(k) read against the k = 1 control timed beside it in each
    // round, as the ratios are: drift between one k's group and the next (a busy neighbour on a
    // shared CPU) cancels, where a fit of median times over the groups would absorb it.
    let rounds: Vec<Vec<f64>> = (within.iter())
        .map(|p| p.div.round_ratios(&p.uniform_ref, m.floor.time()))
        .collect();
    let clocked: Vec<f64> = rounds.iter().map(|r| stats::median(r)).collect();
    let times = stats::fit_linear(ks, t_div);
    if let Some(fit) = &times {
        result.metric("slope_s_ns", fit.slope);
        result.metric("intercept_ns", fit.intercept);
        result.metric("r2_times", fit.r2);
    }
    if let (Some(fit), Some(times)) = (stats::fit_linear(ks, &clocked), times) {
        result.metric("r2", fit.r2);
        result.verdict(
            "linear",
            format!("T(k) = a + s*k for k <= {sg} (linear serialization)"),
            VerdictStatus::consistent_if(fit.r2 >= limits::MIN_R2),
            format!(
                "s = {:.0} ns/path, a = {:.0} ns; R^2 = {:.4} of T_div(k) against the k = 1 \
                 control of its round (needs >= {}), {:.4} of the median times",
                times.slope,
                times.intercept,
                fit.r2,
                limits::MIN_R2,
                times.r2
            ),
        );
    }
    // The quadratic term too, on the same drift-free T_div(k), decided by its interval: a
    // fit of median times once called a straight line bent on a busy CPU. The interval
    // resamples each k's rounds: a t interval over the SG medians has SG - 3 degrees of
    // freedom, one at SG 4, where it could never decide.
    let k = f64::from(sg);
    let share_at_sg = |q: &stats::QuadraticFit| q.c * k * k / (q.a + q.b * k + q.c * k * k);
    let share_of =
        |medians: &[f64]| stats::fit_quadratic(ks, medians).map_or(f64::NAN, |q| share_at_sg(&q));
    if let Some(q) = stats::fit_quadratic(ks, &clocked) {
        let share = share_at_sg(&q);
        let sets: Vec<&[f64]> = rounds.iter().map(Vec::as_slice).collect();
        let (low, high) = stats::bootstrap_medians(&sets, share_of)
            .map_or((f64::NEG_INFINITY, f64::INFINITY), |i| (i.low, i.high));
        result.metrics([
            ("quadratic_c", q.c),
            ("quadratic_t_stat", q.c_t_stat),
            ("quadratic_share", share),
            ("quadratic_share_ci_low", low),
            ("quadratic_share_ci_high", high),
        ]);
        result.verdict(
            "no_superlinear",
            "no super-linear reconvergence penalty",
            VerdictStatus::decided_by_interval(
                low,
                high,
                f64::NEG_INFINITY,
                limits::SUPERLINEAR_SHARE,
            ),
            format!(
                "the quadratic term of T_div(k) against the k = 1 control of its round adds \
                 {:.1}% at k = {sg} (95% interval {:.1}%..{:.1}%, limit {:.0}%; t = {:.1})",
                100.0 * share,
                100.0 * low,
                100.0 * high,
                100.0 * limits::SUPERLINEAR_SHARE,
                q.c_t_stat,
            ),
        );
    }
    if m.loop_form {
        let fit_model = |model: &dyn Fn(&KPoint) -> f64| {
            let xs: Vec<f64> = within.iter().map(|p| model(p)).collect();
            stats::fit_linear(&xs, t_div).map(|f| f.r2)
        };
        let r2_max = fit_model(&|p| p.model_div);
        let r2_sum = fit_model(&|p| p.model_sum_of_paths);
        if let (Some(r2_max), Some(r2_sum)) = (r2_max, r2_sum) {
            result.metric("r2_max_path", r2_max);
            result.metric("r2_sum_of_paths", r2_sum);
            result.verdict(
                "max_path",
                "a divergent loop costs its longest lane (max-path model)",
                VerdictStatus::consistent_if(r2_max >= limits::MIN_R2 && r2_max >= r2_sum),
                format!("R^2 max-path = {r2_max:.4}, sum-of-paths = {r2_sum:.4}"),
            );
        }
    }
}

/// The subgroup-uniform control against its model, k = 1..SG: flat for the branchy forms.
pub(super) fn add_control(
    m: &Measurements,
    within: &[&KPoint],
    ks: &[f64],
    first: &KPoint,
    at_sg: &KPoint,
    floor: f64,
    result: &mut ExperimentResult,
) {
    let sg = m.subgroup_size;
    // Per k, the control's per-round ratios against its k = 1 neighbour, over the model's.
    let on_model = |p: &KPoint| -> Vec<f64> {
        let model = p.model_uniform / first.model_uniform;
        p.uniform
            .round_ratios(&p.uniform_ref, floor)
            .into_iter()
            .map(|r| r / model)
            .collect()
    };
    // Beyond SG the control runs more distinct code than fits the instruction cache on some
    // devices; that is a code-size cost, not divergence, so the flatness check stops at SG.
    let deviation_of = |p: &KPoint| (stats::median(&on_model(p)) - 1.0).abs();
    let deviation = within.iter().map(|p| deviation_of(p)).fold(0.0, f64::max);
    let beyond = m
        .points
        .iter()
        .filter(|p| p.k > sg)
        .map(deviation_of)
        .fold(0.0, f64::max);
    // Flatness is judged on the fitted trend over k <= SG, not on the worst single point:
    // on a noisy device (lavapipe on 2 shared cores) one median can stray while the trend holds.
    let (first_k, sg_k) = (f64::from(first.k), f64::from(at_sg.k));
    let trend_of = |medians: &[f64]| {
        stats::fit_linear(ks, medians).map_or(f64::NAN, |fit| {
            let at = |k: f64| fit.intercept + fit.slope * k;
            at(sg_k) / at(first_k) - 1.0
        })
    };
    let rounds: Vec<Vec<f64>> = within.iter().map(|p| on_model(p)).collect();
    let medians: Vec<f64> = rounds.iter().map(|r| stats::median(r)).collect();
    let trend = trend_of(&medians);
    let sets: Vec<&[f64]> = rounds.iter().map(Vec::as_slice).collect();
    let (low, high) =
        stats::bootstrap_medians(&sets, trend_of).map_or((trend, trend), |i| (i.low, i.high));
    result.metrics([
        ("uniform_trend_at_sg", trend),
        ("uniform_trend_at_sg_ci_low", low),
        ("uniform_trend_at_sg_ci_high", high),
        ("uniform_max_deviation", deviation),
        ("uniform_max_deviation_beyond_sg", beyond),
    ]);
    let control = if m.loop_form {
        "divergence across subgroups costs only its trip count (uniform control on model)"
    } else {
        "divergence across subgroups is free (uniform control flat)"
    };
    let flat = limits::UNIFORM_FLAT;
    let (status, note) = interval_verdict(low, high, -flat, flat);
    result.verdict(
        "uniform_control",
        control,
        status,
        format!(
            "T_uniform(k)/T_uniform(1) against the model, floor-corrected: fitted trend {:+.1}% \
             from k = 1 to {} (95% interval {:+.1}%..{:+.1}%, limit {:.0}%), worst single point \
             {:.1}%; {:.1}% beyond {sg}, where code size rather than divergence can dominate{note}",
            trend * 100.0,
            at_sg.k,
            low * 100.0,
            high * 100.0,
            flat * 100.0,
            deviation * 100.0,
            beyond * 100.0
        ),
    );
}
