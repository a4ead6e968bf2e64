//! The analysis on synthetic timings: a SIMT device, a quadratic penalty, noise and floors.

use super::*;
use crate::report::{ExperimentResult, Rule};

/// A noiseless time: two rounds that agree (one round has no interval at all).
fn exact(v: f64) -> Timing {
    Timing::new(vec![v, v]).unwrap()
}

/// A device that follows the SIMT model exactly: 1000 ns per issued path.
fn simt(sg: u32, penalty_per_path: f64) -> Measurements {
    let points = (1..=sg)
        .map(|k| {
            let paths = f64::from(k);
            KPoint {
                k,
                div: exact(1000.0 * paths + penalty_per_path * paths * paths),
                uniform: exact(1000.0),
                pred: exact(1010.0),
                uniform_ref: exact(1000.0),
                model_div: paths,
                model_uniform: 1.0,
                model_sum_of_paths: paths,
            }
        })
        .collect();
    Measurements {
        subgroup_size: sg,
        points,
        floor: exact(0.0),
        marginal: None,
        occupancy: vec![],
        unbalanced: None,
        mixed_control: None,
        baseline_flops: 1e6,
        loop_form: false,
        occupancy_k: sg,
    }
}

fn status(result: &ExperimentResult, check: &str) -> VerdictStatus {
    result
        .verdicts
        .iter()
        .find(|v| v.check.contains(check))
        .unwrap()
        .status
}

fn analyzed(m: &Measurements) -> ExperimentResult {
    let mut r = ExperimentResult::new(
        "t",
        "t",
        Rule {
            text: String::new(),
            source: String::new(),
        },
    );
    analyze(m, &mut r);
    r
}

#[test]
fn a_simt_device_is_consistent() {
    let r = analyzed(&simt(8, 0.0));
    assert!((r.metrics["serialization_at_sg"] - 8.0).abs() < 1e-9);
    assert!((r.metrics["slope_s_ns"] - 1000.0).abs() < 1e-6);
    assert_eq!(
        status(&r, "linear serialization"),
        VerdictStatus::Consistent
    );
    assert_eq!(status(&r, "super-linear"), VerdictStatus::Consistent);
    assert_eq!(status(&r, "predication"), VerdictStatus::Consistent);
    assert_eq!(
        status(&r, "uniform control flat"),
        VerdictStatus::Consistent
    );
}

#[test]
fn a_quadratic_penalty_is_caught() {
    let r = analyzed(&simt(32, 200.0));
    assert_eq!(status(&r, "super-linear"), VerdictStatus::Inconsistent);
    assert_eq!(status(&r, "efficiency falls"), VerdictStatus::Inconsistent);
}

/// A linear device on a CPU that slows down as the run goes on: each k's group runs slower than
/// the last, its k = 1 control with it. The median times bend upward, the times against each
/// round's control do not, and neither verdict calls it super-linear.
#[test]
fn drift_between_groups_is_not_a_super_linear_penalty() {
    let mut m = simt(8, 0.0);
    for p in &mut m.points {
        let (k, slower) = (f64::from(p.k), 1.0 + 0.02 * f64::from(p.k * p.k));
        p.div = exact(1000.0 * k * slower);
        p.uniform = exact(1000.0 * slower);
        p.uniform_ref = exact(1000.0 * slower);
    }
    let r = analyzed(&m);
    assert_eq!(status(&r, "super-linear"), VerdictStatus::Consistent);
    assert_eq!(
        status(&r, "linear serialization"),
        VerdictStatus::Consistent
    );
    assert!(r.metrics["quadratic_share"].abs() < 1e-9);
    // The median times alone would have called it.
    let times: Vec<f64> = m.points.iter().map(|p| p.div.time()).collect();
    let ks: Vec<f64> = m.points.iter().map(|p| f64::from(p.k)).collect();
    let bent = crate::stats::fit_quadratic(&ks, &times).unwrap();
    assert!(bent.c_significant && bent.c * 64.0 / times[7] > limits::SUPERLINEAR_SHARE);
}

/// At SG 4 the quadratic fit over k = 1..4 has one degree of freedom left: a Student-t
/// interval over the four medians spans past the limit for rounds with half a percent of
/// noise. Resampling the rounds decides it.
#[test]
fn a_subgroup_of_four_with_noisy_rounds_is_decided() {
    let noise = [
        0.02, -0.01, 0.015, -0.02, 0.0, 0.01, -0.015, 0.005, -0.005, 0.02, -0.02, 0.01, 0.0, -0.01,
        0.015,
    ];
    let shifted = |by: usize| -> Vec<f64> { (0..15).map(|i| noise[(i + by) % 15] / 4.0).collect() };
    let mut m = simt(4, 0.0);
    for p in &mut m.points {
        let k = p.k as usize;
        p.div = noisy(1000.0 * f64::from(p.k), &shifted(3 * k));
        p.uniform_ref = noisy(1000.0, &shifted(7 * k + 1));
    }
    let r = analyzed(&m);
    assert_eq!(status(&r, "super-linear"), VerdictStatus::Consistent);
    let (low, high) = (
        r.metrics["quadratic_share_ci_low"],
        r.metrics["quadratic_share_ci_high"],
    );
    assert!(
        high < limits::SUPERLINEAR_SHARE && low < 0.0,
        "{low}..{high}"
    );
    // The t interval over the medians could not have decided it.
    let medians: Vec<f64> = (m.points.iter())
        .map(|p| {
            let ratios = p.div.round_ratios(&p.uniform_ref, 0.0);
            crate::stats::summarize(&ratios).unwrap().median
        })
        .collect();
    let q = crate::stats::fit_quadratic(&[1.0, 2.0, 3.0, 4.0], &medians).unwrap();
    let at_4 = q.a + 4.0 * q.b + 16.0 * q.c;
    let t_high = q.c_interval[1] * 16.0 / at_4;
    assert!(
        t_high > limits::SUPERLINEAR_SHARE,
        "t interval up to {t_high}"
    );
}

#[test]
fn a_rising_control_is_caught() {
    let mut m = simt(8, 0.0);
    for p in &mut m.points {
        p.uniform = exact(1000.0 + 100.0 * f64::from(p.k));
    }
    let r = analyzed(&m);
    assert_eq!(
        status(&r, "uniform control flat"),
        VerdictStatus::Inconsistent
    );
}

/// Times of one configuration over rounds: `base` plus the round's noise.
fn noisy(base: f64, noise: &[f64]) -> Timing {
    Timing::new(noise.iter().map(|n| base * (1.0 + n)).collect()).unwrap()
}

#[test]
fn the_floor_is_taken_out_of_every_ratio() {
    // A device with a 7.4 us dispatch floor and 250 us of work per path: raw F(32) is
    // pulled to ~31.1, the corrected one is the work ratio, 32.
    let floor = 7_400.0;
    let mut m = simt(32, 0.0);
    for p in &mut m.points {
        let k = f64::from(p.k);
        p.div = exact(floor + 250_000.0 * k);
        p.uniform = exact(floor + 250_000.0);
        p.uniform_ref = exact(floor + 250_000.0);
        p.pred = exact(floor + 250_000.0);
    }
    m.floor = exact(floor);
    let r = analyzed(&m);
    assert!((r.metrics["serialization_at_sg"] - 32.0).abs() < 1e-9);
    let raw = (floor + 32.0 * 250_000.0) / (floor + 250_000.0);
    assert!((r.metrics["serialization_at_sg_raw"] - raw).abs() < 1e-9);
    assert!(raw < 31.2);
    assert!((r.metrics["dispatch_floor_ns"] - floor).abs() < 1e-9);
    assert!((r.metrics["intercept_ns"] - floor).abs() < 1e-3);
}

#[test]
fn two_trip_counts_take_out_what_the_floor_does_not() {
    // The empty dispatch costs 4.3 us, but the study's dispatch costs 11 us besides its
    // path work uniform and 34 us divergent (selectors, stores, launches, a branch per
    // path). Per trip, a path costs 1.4 us: 32 paths 32 times that. The floor alone leaves
    // F(32) near 31.2; the two trip counts give 32 whatever the fixed costs are.
    let (floor, fixed_uniform, fixed_div, per_trip) = (4_300.0, 11_000.0, 34_000.0, 1_400.0);
    let (trips, fewer) = (196, 98);
    let noise = [0.0, 0.002, -0.001, 0.003, -0.002, 0.001, 0.0, -0.003, 0.002];
    let at = |fixed: f64, paths: f64, trips: u32| {
        noisy(fixed + paths * per_trip * f64::from(trips), &noise)
    };
    let mut m = simt(32, 0.0);
    m.floor = exact(floor);
    let last = m.points.last_mut().unwrap();
    last.div = at(fixed_div, 32.0, trips);
    last.uniform = at(fixed_uniform, 1.0, trips);
    m.marginal = Some(Marginal {
        trips,
        fewer,
        div: at(fixed_div, 32.0, trips),
        uniform: at(fixed_uniform, 1.0, trips),
        div_fewer: at(fixed_div, 32.0, fewer),
        uniform_fewer: at(fixed_uniform, 1.0, fewer),
    });
    let r = analyzed(&m);
    let f = r.metrics["serialization_at_sg"];
    assert!((f - 32.0).abs() < 0.2, "F(32) = {f}");
    assert!(r.metrics["serialization_at_sg_ci_low"] <= 32.0);
    assert!(r.metrics["serialization_at_sg_ci_high"] >= 32.0);
    let with_floor = r.metrics["serialization_at_sg_floor"];
    assert!(with_floor < 31.4, "the floor alone gives {with_floor}");
    assert!((r.metrics["fixed_cost_uniform_ns"] - fixed_uniform).abs() < 1_000.0);
    assert!((r.metrics["fixed_cost_div_ns"] - fixed_div).abs() < 30_000.0);
    assert_eq!(status(&r, "efficiency falls"), VerdictStatus::Consistent);
}

/// The analysis of a device of width `sg` with these occupancy `levels`, whose penalty it
/// must read as flat: no spread, `consistent`.
fn flat_occupancy(sg: u32, levels: Vec<OccupancyPoint>) -> ExperimentResult {
    let mut m = simt(sg, 0.0);
    m.occupancy = levels;
    let r = analyzed(&m);
    assert!(
        r.metrics["occupancy_spread"].abs() < 1e-9,
        "{:?}",
        r.metrics
    );
    assert_eq!(status(&r, "occupancy"), VerdictStatus::Consistent);
    r
}

/// An occupancy level of exact times `(divergent, uniform)` at one trip count.
fn occupancy_level(invocations: u32, (div, uniform): (f64, f64), floor: f64) -> OccupancyPoint {
    OccupancyPoint {
        workgroup_size: 64,
        invocations,
        trips: 400,
        div: exact(div),
        uniform: exact(uniform),
        floor: exact(floor),
        fewer: None,
    }
}

#[test]
fn occupancy_levels_are_corrected_by_their_own_floor() {
    // Two levels with the same work ratio (32) but floors of 7 us and 1 us; raw, the
    // sparse level looks occupancy-dependent.
    let level = |invocations, work: f64, floor: f64| {
        occupancy_level(invocations, (floor + 32.0 * work, floor + work), floor)
    };
    let levels = vec![
        level(16_384, 4_000.0, 7_000.0),
        level(1 << 20, 250_000.0, 1_000.0),
    ];
    let r = flat_occupancy(32, levels);
    assert!(r.metrics["occupancy_spread_raw"] > 0.5);
}

/// A sparse level whose dispatch costs more than its empty floor (launching its invocations:
/// 20% of its little work, as on lavapipe): floor-corrected, its F(8) reads 6.8 and the spread
/// 15%; on the path work of two trip counts, 8 at every level.
#[test]
fn a_fixed_cost_beside_the_floor_is_not_an_occupancy_penalty() {
    let level = |invocations, per_trip: f64, launch: f64| {
        let at = |trips: f64, paths: f64| 10_000.0 + launch + paths * per_trip * trips;
        let mut level = occupancy_level(invocations, (at(400.0, 8.0), at(400.0, 1.0)), 10_000.0);
        let (div, uniform) = (exact(at(100.0, 8.0)), exact(at(100.0, 1.0)));
        level.fewer = Some(FewerTrips {
            trips: 100,
            div,
            uniform,
        });
        level
    };
    let r = flat_occupancy(
        8,
        vec![level(64, 100.0, 8_000.0), level(4096, 1_000.0, 8_000.0)],
    );
    assert!(r.metrics["occupancy_spread_floor"] > 0.1);
}

#[test]
fn an_interval_across_a_limit_is_inconclusive() {
    // F(8) scatters 6.3..8.3 over rounds: its interval straddles the model's lower limit
    // (8 - 15% = 6.8), so neither consistent nor inconsistent.
    let noise = [-0.2, 0.05, -0.1, 0.03, -0.15, 0.0, -0.05];
    let mut m = simt(8, 0.0);
    for p in &mut m.points {
        let k = f64::from(p.k);
        p.div = noisy(1000.0 * k * 0.93, &noise);
        p.uniform = noisy(1000.0, &[0.0; 7]);
    }
    let r = analyzed(&m);
    let low = r.metrics["serialization_at_sg_ci_low"];
    let high = r.metrics["serialization_at_sg_ci_high"];
    assert!(low < 6.8 && high > 6.8, "interval {low}..{high}");
    assert_eq!(status(&r, "efficiency falls"), VerdictStatus::Inconclusive);
    let detail = &r
        .verdicts
        .iter()
        .find(|v| v.check.contains("efficiency falls"))
        .unwrap()
        .detail;
    assert!(detail.contains("straddles the limit 6.800"), "{detail}");
    // The same scatter well inside the limits decides it.
    for p in &mut m.points {
        p.div = noisy(1000.0 * f64::from(p.k), &noise.map(|n| n / 10.0));
    }
    assert_eq!(
        status(&analyzed(&m), "efficiency falls"),
        VerdictStatus::Consistent
    );
}
