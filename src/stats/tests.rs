//! Tests of `crate::stats`: summaries, line and quadratic fits (one against least-squares fits
//! worked out in exact rationals), the t table, the floor correction and the bootstrap.

use super::*;

/// Asserts `|got − want| ≤ tol · max(1, |want|)`.
fn close(got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol * want.abs().max(1.0),
        "got {got}, want {want} (tol {tol})"
    );
}

/// Noise per block of 4 that is orthogonal to 1, x and x² (third differences).
const THIRD_DIFFERENCES: [f64; 4] = [1.0, -3.0, 3.0, -1.0];

/// `curve(x) + noise[i % 4]` at each x.
fn with_block_noise(xs: &[f64], curve: impl Fn(f64) -> f64, noise: [f64; 4]) -> Vec<f64> {
    xs.iter()
        .enumerate()
        .map(|(i, &x)| curve(x) + noise[i % 4])
        .collect()
}

/// Small data whose least-squares fits were computed by hand in exact rationals.
const REFERENCE_XS: [f64; 7] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
const REFERENCE_YS: [f64; 7] = [1.0, 3.0, 2.0, 5.0, 7.0, 8.0, 12.0];

/// x = 1..=n as floats.
fn xs_up_to(n: usize) -> Vec<f64> {
    (1..=n).map(|i| i as f64).collect()
}

#[test]
fn summarize_odd_count_median() {
    let s = summarize(&[3.0, 1.0, 2.0]).unwrap();
    assert_eq!(s.n, 3);
    close(s.median, 2.0, 0.0);
    close(s.min, 1.0, 0.0);
    close(s.max, 3.0, 0.0);
    close(s.mean, 2.0, 1e-15);
    // Sample sd of {1,2,3} is 1, so cv = 1 / 2.
    close(s.cv, 0.5, 1e-15);
}

#[test]
fn summarize_even_count_median_is_mean_of_middle_two() {
    let s = summarize(&[10.0, 1.0, 4.0, 2.0]).unwrap();
    close(s.median, 3.0, 0.0);
    close(s.mean, 4.25, 1e-15);
}

#[test]
fn summarize_known_cv() {
    // Mean 5, sample variance 32/7.
    let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
    close(s.mean, 5.0, 1e-15);
    close(s.cv, (32.0_f64 / 7.0).sqrt() / 5.0, 1e-14);
}

#[test]
fn cv_of_constant_is_zero() {
    assert_eq!(summarize(&[5.0; 7]).unwrap().cv, 0.0);
    // 0.1 is inexact in binary; the cv must still be exactly 0.
    assert_eq!(summarize(&[0.1; 10]).unwrap().cv, 0.0);
    // A single sample has no spread, and a zero mean gives cv 0.
    assert_eq!(summarize(&[4.0]).unwrap().cv, 0.0);
    assert_eq!(summarize(&[-1.0, 1.0]).unwrap().cv, 0.0);
}

#[test]
fn summarize_rejects_empty_and_non_finite() {
    assert!(summarize(&[]).is_none());
    assert!(summarize(&[1.0, f64::NAN, 2.0]).is_none());
    assert!(summarize(&[f64::INFINITY]).is_none());
}

#[test]
fn linear_recovers_exact_line() {
    let xs = xs_up_to(128);
    let ys: Vec<f64> = xs.iter().map(|x| 3.5 - 0.25 * x).collect();
    let f = fit_linear(&xs, &ys).unwrap();
    close(f.slope, -0.25, 1e-12);
    close(f.intercept, 3.5, 1e-12);
    close(f.r2, 1.0, 1e-12);
}

#[test]
fn linear_noisy_known_data() {
    // Noise in blocks of (+1, −1, −1, +1) is orthogonal to 1 and x, so OLS
    // must return the generating line exactly and
    // r2 = 1 − Σe² / (slope²·Sxx + Σe²).
    let xs = xs_up_to(32);
    let ys = with_block_noise(&xs, |x| 1.0 + 2.0 * x, [0.5, -0.5, -0.5, 0.5]);
    let f = fit_linear(&xs, &ys).unwrap();
    close(f.slope, 2.0, 1e-12);
    close(f.intercept, 1.0, 1e-12);
    let sxx = 32.0 * (32.0 * 32.0 - 1.0) / 12.0;
    let see = 32.0 * 0.25;
    close(f.r2, 1.0 - see / (4.0 * sxx + see), 1e-12);
    assert!(f.r2 < 1.0);
}

#[test]
fn linear_constant_y_is_perfect() {
    let f = fit_linear(&[1.0, 2.0, 3.0], &[0.1, 0.1, 0.1]).unwrap();
    close(f.slope, 0.0, 1e-15);
    close(f.r2, 1.0, 0.0);
}

#[test]
fn linear_rejects_degenerate_input() {
    assert!(fit_linear(&[1.0, 2.0], &[1.0]).is_none());
    assert!(fit_linear(&[1.0], &[1.0]).is_none());
    assert!(fit_linear(&[0.1, 0.1, 0.1], &[1.0, 2.0, 3.0]).is_none());
    assert!(fit_linear(&[1.0, f64::NAN], &[1.0, 2.0]).is_none());
}

#[test]
fn quadratic_on_exact_line_is_insignificant() {
    let xs = xs_up_to(128);
    let ys: Vec<f64> = xs.iter().map(|x| 7.0 + 3.0 * x).collect();
    let f = fit_quadratic(&xs, &ys).unwrap();
    close(f.a, 7.0, 1e-9);
    close(f.b, 3.0, 1e-9);
    close(f.c, 0.0, 1e-12);
    assert_eq!(f.c_t_stat, 0.0);
    assert!(!f.c_significant);
    close(f.r2, 1.0, 1e-12);
}

#[test]
fn quadratic_on_noisy_line_is_insignificant() {
    // Third-difference noise (1, −3, 3, −1) per block of 4 is orthogonal to
    // 1, x and x², so the fit is exact, residuals are non-zero, and t ≈ 0.
    let xs = xs_up_to(128);
    let noise = THIRD_DIFFERENCES.map(|n| 0.2 * n);
    let ys = with_block_noise(&xs, |x| 100.0 + 0.5 * x, noise);
    let f = fit_quadratic(&xs, &ys).unwrap();
    close(f.a, 100.0, 1e-9);
    close(f.b, 0.5, 1e-9);
    close(f.c, 0.0, 1e-12);
    assert!(f.c_t_stat.abs() < 1e-6, "t = {}", f.c_t_stat);
    assert!(!f.c_significant);
    assert!(f.r2 < 1.0);
}

#[test]
fn quadratic_on_x_squared_is_significant() {
    let xs = xs_up_to(128);
    let ys: Vec<f64> = xs.iter().map(|x| x * x).collect();
    let f = fit_quadratic(&xs, &ys).unwrap();
    close(f.a, 0.0, 1e-8);
    close(f.b, 0.0, 1e-9);
    close(f.c, 1.0, 1e-12);
    assert!(f.c_t_stat > 1e6, "t = {}", f.c_t_stat);
    assert!(f.c_significant);
    assert_eq!(f.c_interval, [f.c, f.c], "a perfect fit");
    close(f.r2, 1.0, 1e-12);
}

#[test]
fn quadratic_with_noise_recovers_curvature() {
    // Same orthogonal noise on a genuine parabola: exact coefficients, a
    // finite but large t statistic.
    let xs = xs_up_to(64);
    let ys = with_block_noise(&xs, |x| 2.0 - 1.5 * x + 0.25 * x * x, THIRD_DIFFERENCES);
    let f = fit_quadratic(&xs, &ys).unwrap();
    close(f.a, 2.0, 1e-9);
    close(f.b, -1.5, 1e-9);
    close(f.c, 0.25, 1e-12);
    assert!(f.c_t_stat.is_finite() && f.c_t_stat > 10.0);
    assert!(f.c_significant);
}

#[test]
fn fits_match_exact_rational_reference() {
    let (xs, ys) = (REFERENCE_XS, REFERENCE_YS);
    let line = fit_linear(&xs, &ys).unwrap();
    close(line.slope, 12.0 / 7.0, 1e-12);
    close(line.intercept, 2.0 / 7.0, 1e-12);
    close(line.r2, 0.917_197_452_229_299_4, 1e-12);
    // Exact OLS: a = 19/14, b = 3/7, c = 3/14, t(c) = 1.2·√3 on 4 dof,
    // below the critical 2.776 -> not significant.
    let f = fit_quadratic(&xs, &ys).unwrap();
    close(f.a, 19.0 / 14.0, 1e-12);
    close(f.b, 3.0 / 7.0, 1e-12);
    close(f.c, 3.0 / 14.0, 1e-12);
    close(f.c_t_stat, 1.2 * 3.0_f64.sqrt(), 1e-12);
    // The interval is c ± t(95%, 4 dof) · se, and se = c / t.
    let margin = t_critical_95(4) * (3.0 / 14.0) / (1.2 * 3.0_f64.sqrt());
    close(f.c_interval[0], 3.0 / 14.0 - margin, 1e-12);
    close(f.c_interval[1], 3.0 / 14.0 + margin, 1e-12);
    assert!(
        f.c_interval[0] < 0.0,
        "not significant: the interval holds 0"
    );
    assert!(!f.c_significant);
    close(f.r2, 0.960_191_082_802_547_7, 1e-12);
}

#[test]
fn quadratic_t_stat_is_invariant_to_rescaling_x() {
    let (xs, ys) = (REFERENCE_XS, REFERENCE_YS);
    let shifted: Vec<f64> = xs.iter().map(|x| 1000.0 + 16.0 * x).collect();
    let f = fit_quadratic(&xs, &ys).unwrap();
    let g = fit_quadratic(&shifted, &ys).unwrap();
    close(g.c_t_stat, f.c_t_stat, 1e-9);
    close(g.c, f.c / 256.0, 1e-9);
}

#[test]
fn quadratic_rejects_degenerate_input() {
    assert!(fit_quadratic(&[1.0, 2.0, 3.0], &[1.0, 4.0, 9.0]).is_none());
    assert!(fit_quadratic(&[1.0, 2.0, 3.0, 4.0], &[1.0, 2.0]).is_none());
    // Only two distinct x values: curvature is unidentifiable.
    assert!(fit_quadratic(&[1.0, 1.0, 2.0, 2.0], &[1.0, 2.0, 3.0, 4.0]).is_none());
    assert!(fit_quadratic(&[1.0, 2.0, 3.0, f64::INFINITY], &[1.0; 4]).is_none());
}

#[test]
fn t_critical_table_edges() {
    close(t_critical_95(1), 12.706, 0.0);
    close(t_critical_95(30), 2.042, 0.0);
    close(t_critical_95(31), 1.96, 0.0);
    assert!(t_critical_95(0).is_infinite());
}

#[test]
fn floor_correction_refuses_non_finite_operands_and_quotients() {
    assert_eq!(floor_corrected(6.0, 3.0, 0.0), Some(2.0));
    assert_eq!(floor_corrected(f64::NAN, 1.0, 0.0), None);
    assert_eq!(floor_corrected(1.0, f64::INFINITY, 0.0), None);
    assert_eq!(floor_corrected(1.0, 2.0, f64::NEG_INFINITY), None);
    assert_eq!(floor_corrected(f64::MAX, 0.5, 0.0), None);
}

#[test]
fn floor_correction_recovers_the_work_ratio() {
    // 8 units of work against 1, each on top of a 7 us fixed cost.
    let (floor, unit) = (7_000.0, 250_000.0);
    let raw = (floor + 8.0 * unit) / (floor + unit);
    assert!(raw < 7.85, "the floor biases the raw ratio: {raw}");
    let corrected = floor_corrected(floor + 8.0 * unit, floor + unit, floor).unwrap();
    assert!((corrected - 8.0).abs() < 1e-12);
    assert_eq!(floor_corrected(5.0, 3.0, 3.0), None);
    assert_eq!(floor_corrected(5.0, 2.0, 3.0), None);
}

#[test]
fn bootstrap_interval_covers_a_known_ratio() {
    // Per-round ratios of a true 8.0 with 10% multiplicative noise, 15 rounds; over 200
    // such experiments the 95% interval covers 8.0 about 95% of the time (a median's
    // percentile interval runs a little wide at this n).
    let mut rng = fastrand::Rng::with_seed(7);
    let mut covered = 0;
    let mut widths = Vec::new();
    for _ in 0..200 {
        let ratios: Vec<f64> = (0..15)
            .map(|_| 8.0 * (1.0 + 0.1 * (rng.f64() * 2.0 - 1.0) * 1.7))
            .collect();
        let ci = median_interval(&ratios).unwrap();
        assert!(ci.low <= ci.high);
        covered += usize::from((ci.low..=ci.high).contains(&8.0));
        widths.push(ci.relative_width(8.0));
    }
    assert!((180..=200).contains(&covered), "covered {covered}/200");
    let width = summarize(&widths).unwrap().median;
    assert!(width > 0.02 && width < 0.3, "median relative width {width}");
}

#[test]
fn bootstrap_of_a_constant_is_a_point_and_of_nothing_is_none() {
    let ci = median_interval(&[3.0; 7]).unwrap();
    assert_eq!((ci.low, ci.high), (3.0, 3.0));
    assert_eq!(median_interval(&[]), None);
    // One sample has no spread to resample: no interval, rather than one of zero width.
    assert_eq!(median_interval(&[3.0]), None);
    assert_eq!(
        bootstrap_medians(&[&[1.0, 2.0], &[4.0]], |m| m[1] / m[0]),
        None
    );
    assert!(median_interval(&[3.0, 4.0]).is_some());
    assert_eq!(median_interval(&[1.0, f64::NAN]), None);
    // A statistic of several sets: the spread of two medians.
    let a = [1.0, 1.01, 0.99, 1.0, 1.02];
    let b = [2.0, 2.02, 1.98, 2.0, 2.01];
    let spread = bootstrap_medians(&[&a, &b], |m| m[1] - m[0]).unwrap();
    assert!(spread.low < 1.0 && 1.0 < spread.high, "{spread:?}");
    assert!(spread.low > 0.9 && spread.high < 1.1, "{spread:?}");
}

/// The range of four medians that agree: noise in the resamples widens the range, so the plain
/// percentile interval lies above the range itself; shifted by the bootstrap's bias, it holds
/// it, at the same width.
#[test]
fn a_range_of_medians_gets_a_debiased_interval_that_holds_it() {
    // Four levels whose medians agree within 0.01, each noisy by ±0.15 around it.
    let level = |m: f64| [m - 0.15, m - 0.1, m, m + 0.1, m + 0.15, m - 0.05, m + 0.05];
    let levels = [level(1.0), level(1.0), level(1.005), level(1.01)];
    let sets: Vec<&[f64]> = levels.iter().map(|l| &l[..]).collect();
    let range = |m: &[f64]| {
        let (min, max) = m
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        max - min
    };
    let point = range(&[1.0, 1.0, 1.005, 1.01]);
    let plain = bootstrap_medians(&sets, range).unwrap();
    assert!(plain.low > point, "{point} {plain:?}");
    let shifted = bootstrap_medians_debiased(&sets, range).unwrap();
    assert!(
        shifted.low < point && point < shifted.high,
        "{point} {shifted:?}"
    );
    let width = |i: &Interval| i.high - i.low;
    assert!((width(&plain) - width(&shifted)).abs() < 1e-12);
    // A statistic without bias (one set's median) moves little.
    let median = bootstrap_medians_debiased(&[&level(1.0)], |m| m[0]).unwrap();
    assert!(median.low <= 1.0 && 1.0 <= median.high, "{median:?}");
}

#[test]
fn binomial_tails_match_their_closed_forms() {
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b;
    // Every one of 8 at 0.815 each: 0.815^8.
    assert!(close(binomial_tail(8, 8, 0.815, true), 0.815f64.powi(8)));
    // Two heads or fewer in 10 fair tosses: (1 + 10 + 45) / 1024.
    assert!(close(binomial_tail(10, 2, 0.5, false), 56.0 / 1024.0));
    // At least 0 is certain; with p = 1, fewer than all is impossible.
    assert!(close(binomial_tail(1000, 0, 0.3, true), 1.0));
    assert_eq!(binomial_tail(5, 4, 1.0, false), 0.0);
    assert!(close(binomial_tail(5, 5, 1.0, true), 1.0));
    // Thousands of trials do not underflow to 0 where the tail is not small.
    let half = binomial_tail(4000, 2000, 0.5, true);
    assert!(half > 0.5 && half < 0.52, "{half}");
}
