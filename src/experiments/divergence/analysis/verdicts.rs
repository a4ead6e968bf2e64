//! The verdicts read at k = SG: serialization against the SIMT model, predication, unbalanced
//! paths, and the noise of the whole run.

use super::*;

/// F(SG) = T_div/T_uniform at the subgroup size, floor-corrected, against the SIMT model's
/// efficiency SG/k.
pub(super) fn add_serialization(
    m: &Measurements,
    at_sg: &KPoint,
    floor: f64,
    result: &mut ExperimentResult,
) {
    let sg = m.subgroup_size;
    let k = at_sg.k;
    let f_floor = at_sg.div.ratio_to(&at_sg.uniform, floor);
    let f_model = at_sg.model_div / at_sg.model_uniform;
    result.metric("serialization_model_at_sg", f_model);
    let (floor_low, floor_high) = f_floor.bounds();
    result.metric("serialization_at_sg_floor", f_floor.value);
    result.metric("serialization_at_sg_floor_ci_low", floor_low);
    result.metric("serialization_at_sg_floor_ci_high", floor_high);
    let (f_sg, method) = match &m.marginal {
        Some(marginal) => {
            let (fixed_div, fixed_uniform) = marginal.fixed_costs();
            result.metric("fixed_cost_div_ns", fixed_div);
            result.metric("fixed_cost_uniform_ns", fixed_uniform);
            let f = marginal.ratio();
            let method = format!(
                "F({k}) = (T_div - T_div') / (T_uniform - T_uniform'), the same dispatches at \
                 {} and {} trips per path = {}: the path work alone, without what the dispatch \
                 costs besides ({fixed_div:.0} ns divergent, {fixed_uniform:.0} ns uniform, \
                 extrapolated to zero trips); with only the empty-dispatch floor ({floor:.0} ns) \
                 taken out, F({k}) = {}",
                marginal.trips,
                marginal.fewer,
                f.describe(2),
                f_floor.describe(2),
            );
            (f, method)
        }
        None => {
            let method = format!(
                "F({k}) = (T_div - floor)/(T_uniform - floor) = {}; floor {floor:.0} ns",
                f_floor.describe(2)
            );
            (f_floor, method)
        }
    };
    f_sg.record(result, "serialization_at_sg");
    let (low, high) = f_sg.bounds();
    let tolerance = limits::SERIALIZATION_TOLERANCE;
    let (status, note) = interval_verdict(
        low,
        high,
        f_model * (1.0 - tolerance),
        f_model * (1.0 + tolerance),
    );
    result.verdict(
        "simt_model",
        format!("efficiency falls as {sg}/k: F({k}) matches the SIMT model"),
        status,
        format!(
            "{method}; model {f_model:.2} +- {:.0}%, efficiency {:.2} of {sg} lanes{note}",
            tolerance * 100.0,
            f64::from(sg) / f_sg.value
        ),
    );
    if let Some((div, mixed)) = &m.mixed_control {
        div.ratio_to(mixed, floor)
            .record(result, "serialization_mixed_control_at_sg");
    }
}

/// The predicated variant at SG against k = 1: no branches, so no serialization.
pub(super) fn add_predication(
    first: &KPoint,
    at_sg: &KPoint,
    floor: f64,
    result: &mut ExperimentResult,
) {
    let pred = at_sg.pred.ratio_to(&first.pred, floor);
    pred.record(result, "predicated_ratio_at_sg");
    let (low, high) = pred.bounds();
    let (status, note) =
        interval_verdict(low, high, f64::NEG_INFINITY, limits::PREDICATED_MAX_RATIO);
    result.verdict(
        "predication",
        "predication removes the serialization cost",
        status,
        format!(
            "T_pred({})/T_pred(1) = {} (limit {}), vs T_div ratio {:.2}{note}",
            at_sg.k,
            pred.describe(3),
            limits::PREDICATED_MAX_RATIO,
            at_sg.div.ratio_to(&first.div, floor).value
        ),
    );
}

/// One heavy path and k - 1 light ones against balanced paths of the same total work.
pub(super) fn add_unbalanced(m: &Measurements, floor: f64, result: &mut ExperimentResult) {
    let Some((k, balanced, unbalanced)) = &m.unbalanced else {
        return;
    };
    let ratio = unbalanced.ratio_to(balanced, floor);
    ratio.record(result, "unbalanced_ratio");
    let (low, high) = ratio.bounds();
    let tolerance = limits::UNBALANCED_TOLERANCE;
    let (status, note) = interval_verdict(low, high, 1.0 - tolerance, 1.0 + tolerance);
    result.verdict(
        "unbalanced",
        format!("unbalanced paths cost the sum of their paths (k = {k})"),
        status,
        format!(
            "one heavy path and {} light ones took {}x balanced paths of the same total \
             work (limit +-{:.0}%){note}",
            k - 1,
            ratio.describe(3),
            tolerance * 100.0
        ),
    );
}

/// The spread of the repetitions: the median and largest coefficient of variation.
pub(super) fn add_noise(m: &Measurements, result: &mut ExperimentResult) {
    let mut cvs: Vec<f64> = m
        .points
        .iter()
        .flat_map(|p| [&p.div, &p.uniform, &p.pred].map(|t| t.summary.cv))
        .collect();
    cvs.extend(
        m.occupancy
            .iter()
            .flat_map(|o| [o.div.summary.cv, o.uniform.summary.cv]),
    );
    if let Some(cv) = stats::summarize(&cvs) {
        result.metric("cv_median", cv.median);
        result.metric("cv_max", cv.max);
    }
}
