//! From timings to claims: fits, serialization factors, efficiency and the verdicts of the
//! divergence study. Pure maths over medians; no GPU here.

mod fits;
mod measurements;
mod occupancy;
mod series;
#[cfg(test)]
mod tests;
mod timing;
mod verdicts;

pub use measurements::{
    FewerTrips, KPoint, Marginal, Measurements, OccupancyPoint, difference_ratios,
};
pub use timing::{Ratio, Timing};

use crate::report::{ExperimentResult, Point, Series, VerdictStatus};
use crate::stats;
use fits::{add_control, add_fits};
use occupancy::add_occupancy;
use series::{add_series, series};
use timing::interval_verdict;
use verdicts::{add_noise, add_predication, add_serialization, add_unbalanced};

/// Verdict thresholds, from the study's definition (issue "Divergence cost study").
pub mod limits {
    /// Linearity holds when the fit of T(k) on k explains this much of the variance.
    pub const MIN_R2: f64 = 0.98;
    /// The uniform control is flat when its fitted trend from k = 1 to SG, read against the
    /// model, stays this close to zero.
    pub const UNIFORM_FLAT: f64 = 0.05;
    /// Predication removes the cost when T_pred(SG)/T_pred(1) is at most this.
    pub const PREDICATED_MAX_RATIO: f64 = 1.2;
    /// The penalty is occupancy-independent when its spread over levels is at most this.
    pub const OCCUPANCY_SPREAD: f64 = 0.10;
    /// F(SG) agrees with the SIMT model when within this fraction of it.
    pub const SERIALIZATION_TOLERANCE: f64 = 0.15;
    /// A significant quadratic term matters when it adds more than this fraction at k = SG.
    pub const SUPERLINEAR_SHARE: f64 = 0.05;
    /// Unbalanced paths cost their sum when within this fraction of balanced paths.
    pub const UNBALANCED_TOLERANCE: f64 = 0.10;
}

/// Adds the study's metrics, series and verdicts to `result`.
pub fn analyze(m: &Measurements, result: &mut ExperimentResult) {
    let sg = m.subgroup_size;
    let within: Vec<&KPoint> = m.points.iter().filter(|p| p.k <= sg).collect();
    let Some(first) = m.points.first() else {
        return;
    };
    let at_sg = within.last().copied().unwrap_or(first);
    let floor = m.floor.time();
    result.metric("dispatch_floor_ns", floor);
    add_series(m, result);

    let ks: Vec<f64> = within.iter().map(|p| f64::from(p.k)).collect();
    let t_div: Vec<f64> = within.iter().map(|p| p.div.time()).collect();
    add_fits(m, &within, &ks, &t_div, result);
    add_serialization(m, at_sg, floor, result);
    add_control(m, &within, &ks, first, at_sg, floor, result);
    add_predication(first, at_sg, floor, result);
    add_occupancy(m, result);
    add_unbalanced(m, floor, result);
    add_noise(m, result);
    result.metric("baseline_gflops", m.baseline_flops / first.div.time());
}
