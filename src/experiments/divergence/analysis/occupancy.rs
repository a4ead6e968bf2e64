//! The penalty across occupancy levels, each read on its path work (two trip counts), or
//! corrected by its own floor where it ran at one.

use super::*;

pub(super) fn add_occupancy(m: &Measurements, result: &mut ExperimentResult) {
    let penalties: Vec<Ratio> = m.occupancy.iter().map(OccupancyPoint::penalty).collect();
    let on_path_work = m.occupancy.iter().all(|o| o.fewer.is_some());
    let values: Vec<f64> = penalties.iter().map(|p| p.value).collect();
    let Some(summary) = stats::summarize(&values) else {
        return;
    };
    let spread_of = |medians: &[f64]| {
        stats::summarize(medians).map_or(f64::NAN, |s| (s.max - s.min) / s.median)
    };
    let spread = spread_of(&values);
    let sets: Vec<&[f64]> = penalties.iter().map(|p| p.rounds.as_slice()).collect();
    // Noise widens a range, and resampling widens it again: the interval is shifted back by
    // that bias, or it can lie wholly above the spread it is of (a spread is never below 0).
    let (low, high) = stats::bootstrap_medians_debiased(&sets, spread_of)
        .map_or((spread, spread), |i| (i.low.max(0.0), i.high.max(0.0)));
    result.metric("occupancy_spread", spread);
    result.metric("occupancy_spread_ci_low", low);
    result.metric("occupancy_spread_ci_high", high);
    let raw: Vec<f64> = penalties.iter().map(|p| p.raw).collect();
    result.metric("occupancy_spread_raw", spread_of(&raw));
    // The floor-corrected spread too: beside the path-work one it shows what a level's
    // dispatch costs besides its floor did to it.
    let floor_only: Vec<f64> = (m.occupancy.iter())
        .map(|o| o.floor_corrected().value)
        .collect();
    result.metric("occupancy_spread_floor", spread_of(&floor_only));
    let floor_share = m
        .occupancy
        .iter()
        .map(|o| o.floor.time() / o.uniform.time())
        .fold(0.0, f64::max);
    result.metric("occupancy_max_floor_share", floor_share);
    let largest = m.occupancy.iter().map(|o| o.invocations).max().unwrap_or(0);
    let saturated: Vec<f64> = m
        .occupancy
        .iter()
        .zip(&values)
        .filter(|(o, _)| o.invocations == largest)
        .map(|(_, p)| *p)
        .collect();
    result.metric("occupancy_spread_saturated", spread_of(&saturated));
    let (lowest, _) = m
        .occupancy
        .iter()
        .zip(&values)
        .min_by(|a, b| a.1.total_cmp(b.1))
        .expect("penalties is not empty");
    let (status, note) = interval_verdict(low, high, 0.0, limits::OCCUPANCY_SPREAD);
    result.verdict(
        "occupancy",
        "the penalty does not depend on occupancy",
        status,
        format!(
            "{} at k = {} over {} levels, each calibrated to its own trip count: {:.2}..{:.2}, \
             spread {:.1}% (95% interval {:.1}%..{:.1}%, bias-corrected, limit {:.0}%; \
             floor-corrected only {:.1}%, raw {:.1}%); lowest at workgroup {} x {} invocations; \
             the floor is at most {:.1}% of a level's uniform dispatch{note}",
            if on_path_work {
                "T_div/T_uniform on the path work (each level at two trip counts)"
            } else {
                "floor-corrected T_div/T_uniform"
            },
            m.occupancy_k,
            values.len(),
            summary.min,
            summary.max,
            spread * 100.0,
            low * 100.0,
            high * 100.0,
            limits::OCCUPANCY_SPREAD * 100.0,
            spread_of(&floor_only) * 100.0,
            spread_of(&raw) * 100.0,
            lowest.workgroup_size,
            lowest.invocations,
            floor_share * 100.0
        ),
    );
    let mut sizes: Vec<u32> = m.occupancy.iter().map(|o| o.workgroup_size).collect();
    sizes.dedup();
    for wg in sizes {
        let points = m
            .occupancy
            .iter()
            .zip(&penalties)
            .filter(|(o, _)| o.workgroup_size == wg)
            .map(|(o, p)| {
                let (low, high) = p.bounds();
                Point {
                    x: f64::from(o.invocations),
                    y: p.value,
                    y_min: Some(low),
                    y_max: Some(high),
                }
            })
            .collect();
        result.series.push(series(
            &format!("occupancy_penalty_wg{wg}"),
            "invocations",
            "T_div/T_uniform",
            points,
        ));
    }
}
