//! Small, dependency-free statistics used to summarise benchmark timings and
//! to fit cost models to them.
//!
//! Everything here is pure maths over `f64` slices:
//!
//! * [`summarize`] — median / min / max / mean / coefficient of variation of a
//!   set of repeated timings;
//! * [`fit_linear`] — ordinary least squares `y = intercept + slope·x`;
//! * [`fit_quadratic`] — ordinary least squares `y = a + b·x + c·x²`, with a
//!   Student-t test of whether the quadratic term is distinguishable from zero
//!   (used to ask "does cost grow faster than linearly with divergence?");
//! * [`floor_corrected`] — a ratio of two times with a fixed cost taken out of both;
//! * [`bootstrap_medians`] / [`median_interval`] — 95% percentile-bootstrap intervals of a
//!   statistic of medians (for example a ratio, or the spread of several ratios).
//!
//! Degenerate input yields `None` rather than a silently meaningless number.

/// Descriptive statistics of one set of samples (for example repeated timings
/// of the same kernel).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Median; for an even count, the mean of the two middle values.
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Coefficient of variation: sample standard deviation (n − 1 denominator)
    /// divided by the mean. It is 0 when `n < 2` or the mean is 0, and carries
    /// the sign of the mean (timings are positive, so in practice it is ≥ 0).
    pub cv: f64,
}

/// The median of `samples`: NaN for an empty slice or where a sample is not finite.
pub fn median(samples: &[f64]) -> f64 {
    summarize(samples).map_or(f64::NAN, |s| s.median)
}

/// Summarises `samples`.
///
/// Returns `None` for an empty slice or if any sample is NaN or infinite.
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    if samples.is_empty() || samples.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let n = samples.len();

    let mut sorted = samples.to_vec();
    // All values are finite, so total_cmp is the ordinary numeric order.
    sorted.sort_by(f64::total_cmp);
    let min = sorted[0];
    let max = sorted[n - 1];
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        // Halve before adding so two huge values cannot overflow.
        sorted[n / 2 - 1] / 2.0 + sorted[n / 2] / 2.0
    };

    // Welford's running mean/variance: no large intermediate sums, and a
    // constant series gives exactly zero variance (x - mean is exactly 0).
    let mut mean = 0.0;
    let mut m2 = 0.0;
    for (k, &x) in samples.iter().enumerate() {
        let delta = x - mean;
        mean += delta / (k + 1) as f64;
        m2 += delta * (x - mean);
    }

    let cv = if n < 2 || mean == 0.0 {
        0.0
    } else {
        (m2 / (n - 1) as f64).sqrt() / mean
    };

    Some(Summary {
        n,
        median,
        min,
        max,
        mean,
        cv,
    })
}

/// Result of an ordinary-least-squares straight-line fit `y = intercept + slope·x`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LinearFit {
    /// Value of the fitted line at `x = 0`.
    pub intercept: f64,
    /// Change in `y` per unit of `x`.
    pub slope: f64,
    /// Coefficient of determination `1 − SS_res / SS_tot`; 1 for a perfect fit
    /// (including a constant `y`, which a flat line fits exactly).
    pub r2: f64,
}

/// Fits `y = intercept + slope·x` by ordinary least squares.
///
/// Returns `None` if the slices differ in length, hold fewer than 2 points,
/// contain a non-finite value, or if every `x` is equal (the slope is then
/// undefined).
pub fn fit_linear(xs: &[f64], ys: &[f64]) -> Option<LinearFit> {
    if xs.len() != ys.len() || xs.len() < 2 || !all_finite(xs) || !all_finite(ys) {
        return None;
    }
    // Compare exactly against the first x: a computed mean of identical values
    // can be off by an ulp, which would make Sxx tiny but non-zero.
    if xs.iter().all(|&x| x == xs[0]) {
        return None;
    }
    let n = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;

    // Centred sums avoid the cancellation of the textbook Σx² − n·x̄² form.
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for (&x, &y) in xs.iter().zip(ys) {
        sxx += (x - mx) * (x - mx);
        sxy += (x - mx) * (y - my);
    }
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;

    let ss_res: f64 = xs
        .iter()
        .zip(ys)
        .map(|(&x, &y)| {
            let r = y - (intercept + slope * x);
            r * r
        })
        .sum();
    let r2 = r_squared(ss_res, ys);

    Some(LinearFit {
        intercept,
        slope,
        r2,
    })
}

/// Result of an ordinary-least-squares fit `y = a + b·x + c·x²`, with a test of
/// whether the curvature `c` is real.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QuadraticFit {
    /// Constant term.
    pub a: f64,
    /// Linear coefficient.
    pub b: f64,
    /// Quadratic coefficient.
    pub c: f64,
    /// Student-t statistic of `c` (estimate / standard error, `n − 3` degrees
    /// of freedom). For a perfect fit (zero residual variance) it is 0 when
    /// `c ≈ 0` and ±infinity otherwise. Note that serde_json writes an
    /// infinite value as `null`.
    pub c_t_stat: f64,
    /// Whether `|c_t_stat|` exceeds the two-sided 95% Student-t critical value,
    /// i.e. the quadratic term is significantly different from zero.
    pub c_significant: bool,
    /// The 95% confidence interval of `c` (Student-t, `n − 3` degrees of freedom);
    /// `[c, c]` for a perfect fit.
    pub c_interval: [f64; 2],
    /// Coefficient of determination `1 − SS_res / SS_tot`.
    pub r2: f64,
}

/// Fits `y = a + b·x + c·x²` by ordinary least squares and tests whether `c`
/// is significantly non-zero at the 95% level.
///
/// Returns `None` if the slices differ in length, hold fewer than 4 points
/// (at least one residual degree of freedom is needed for the t test), contain
/// a non-finite value, or have fewer than 3 distinct `x` values (the normal
/// equations are then singular).
pub fn fit_quadratic(xs: &[f64], ys: &[f64]) -> Option<QuadraticFit> {
    let n = xs.len();
    if ys.len() != n || n < 4 || !all_finite(xs) || !all_finite(ys) {
        return None;
    }
    let mut distinct = xs.to_vec();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() < 3 {
        return None;
    }

    // Map x onto u ∈ [-1, 1]. With raw x up to ~128, Σx⁴ is ~10⁹·n and XᵀX is
    // badly conditioned; in u the matrix entries are all O(n).
    let (lo, hi) = (distinct[0], distinct[distinct.len() - 1]);
    let centre = lo / 2.0 + hi / 2.0;
    let half = hi / 2.0 - lo / 2.0;
    let us: Vec<f64> = xs.iter().map(|&x| (x - centre) / half).collect();

    // Normal equations XᵀX β = Xᵀy for the design columns [1, u, u²].
    let mut xtx = [[0.0; 3]; 3];
    let mut xty = [0.0; 3];
    for (&u, &y) in us.iter().zip(ys) {
        let row = [1.0, u, u * u];
        for (i, &ri) in row.iter().enumerate() {
            xty[i] += ri * y;
            for (j, &rj) in row.iter().enumerate() {
                xtx[i][j] += ri * rj;
            }
        }
    }
    let [sa, sb, sc] = solve3(xtx, xty)?;
    // (XᵀX)⁻¹[2][2] is the third component of XᵀX \ e₃.
    let inv_cc = solve3(xtx, [0.0, 0.0, 1.0])?[2];

    let ss_res: f64 = us
        .iter()
        .zip(ys)
        .map(|(&u, &y)| {
            let r = y - (sa + sb * u + sc * u * u);
            r * r
        })
        .sum();

    // The t statistic of the highest-order coefficient is invariant under the
    // affine change x → u (c = sc / half², and its standard error scales the
    // same way), so it is computed directly in the well-conditioned basis.
    let y_scale = ys.iter().fold(0.0_f64, |m, &y| m.max(y.abs()));
    let sum_y2: f64 = ys.iter().map(|y| y * y).sum();
    let perfect = ss_res <= PERFECT_FIT_REL * sum_y2;
    // The standard error of `sc`; 0 for a perfect fit.
    let se_sc = if perfect {
        0.0
    } else {
        (ss_res / (n - 3) as f64 * inv_cc).sqrt()
    };
    let t_critical = t_critical_95(n - 3);
    let c_t_stat = if perfect {
        // Zero residual variance: the estimate is exact, so any curvature that
        // is not rounding noise is infinitely significant.
        if sc.abs() <= 1e-9 * y_scale {
            0.0
        } else {
            f64::INFINITY.copysign(sc)
        }
    } else {
        sc / se_sc
    };
    let c_significant = c_t_stat.abs() > t_critical;
    let c_margin = t_critical * se_sc / (half * half);

    // Undo u = (x − centre) / half:
    //   sa + sb·u + sc·u² = a + b·x + c·x².
    let c = sc / (half * half);
    let b = sb / half - 2.0 * c * centre;
    let a = sa - sb * centre / half + c * centre * centre;

    Some(QuadraticFit {
        a,
        b,
        c,
        c_t_stat,
        c_significant,
        c_interval: [c - c_margin, c + c_margin],
        r2: r_squared(ss_res, ys),
    })
}

/// `(t - floor) / (t_ref - floor)`: the ratio of the work two dispatches did, with the fixed
/// per-dispatch cost (`floor`) taken out of both. `None` when the reference holds no work
/// beyond the floor, or an operand or the quotient is not finite.
pub fn floor_corrected(t: f64, t_ref: f64, floor: f64) -> Option<f64> {
    let (work, work_ref) = (t - floor, t_ref - floor);
    if t_ref <= floor || !work.is_finite() || !work_ref.is_finite() {
        return None;
    }
    let q = work / work_ref;
    q.is_finite().then_some(q)
}

/// A two-sided interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

impl Interval {
    /// The width relative to `centre` (`(high - low) / |centre|`); infinite for a zero centre.
    pub fn relative_width(&self, centre: f64) -> f64 {
        (self.high - self.low) / centre.abs()
    }
}

/// Bootstrap resamples per interval: enough for stable 2.5%/97.5% percentiles.
const BOOTSTRAP_RESAMPLES: usize = 2000;

/// A 95% percentile-bootstrap interval of `statistic`, which takes one median per set.
///
/// Each resample draws every set's samples with replacement (sets are resampled independently:
/// they are separate configurations) and evaluates `statistic` on the resampled medians. The
/// seed is fixed, so the same data gives the same interval. `None` when a set holds fewer than
/// two samples (one resamples only to itself: an interval of zero width that would call any
/// difference real) or a non-finite value, or when the statistic is not finite on the data.
pub fn bootstrap_medians(sets: &[&[f64]], statistic: impl Fn(&[f64]) -> f64) -> Option<Interval> {
    let (_, values) = bootstrap_values(sets, statistic)?;
    Some(percentile_interval(&values))
}

/// [`bootstrap_medians`] shifted by the bootstrap's estimate of the statistic's bias (the mean
/// of the resampled values less the value on the data), for a statistic that noise pushes one
/// way: the range of several medians, which resampling widens as noise widened it. The plain
/// percentile interval of such a statistic can lie wholly above its own value; shifted, it
/// holds it, and keeps its width.
pub fn bootstrap_medians_debiased(
    sets: &[&[f64]],
    statistic: impl Fn(&[f64]) -> f64,
) -> Option<Interval> {
    let (on_data, values) = bootstrap_values(sets, statistic)?;
    let bias = values.iter().sum::<f64>() / values.len() as f64 - on_data;
    let plain = percentile_interval(&values);
    Some(Interval {
        low: plain.low - bias,
        high: plain.high - bias,
    })
}

/// `statistic` on the sets' medians, and on the medians of [`BOOTSTRAP_RESAMPLES`] resamples,
/// sorted; see [`bootstrap_medians`] for when there are none.
fn bootstrap_values(sets: &[&[f64]], statistic: impl Fn(&[f64]) -> f64) -> Option<(f64, Vec<f64>)> {
    if sets.is_empty() || sets.iter().any(|s| s.len() < 2 || !all_finite(s)) {
        return None;
    }
    let medians: Vec<f64> = sets
        .iter()
        .map(|s| summarize(s).map(|x| x.median))
        .collect::<Option<_>>()?;
    let on_data = statistic(&medians);
    if !on_data.is_finite() {
        return None;
    }
    let mut rng = fastrand::Rng::with_seed(0xb007);
    let mut resample = Vec::new();
    let mut resampled_medians = vec![0.0; sets.len()];
    let mut values: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .filter_map(|_| {
            for (set, median) in sets.iter().zip(&mut resampled_medians) {
                resample.clear();
                resample.extend((0..set.len()).map(|_| set[rng.usize(..set.len())]));
                *median = self::median(&resample);
            }
            Some(statistic(&resampled_medians)).filter(|v| v.is_finite())
        })
        .collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some((on_data, values))
}

/// The 2.5% and 97.5% points of sorted `values`.
fn percentile_interval(values: &[f64]) -> Interval {
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    Interval {
        low: at(0.025),
        high: at(0.975),
    }
}

/// A 95% percentile-bootstrap interval of the median of `samples`.
pub fn median_interval(samples: &[f64]) -> Option<Interval> {
    bootstrap_medians(&[samples], |m| m[0])
}

/// The probability that `n` independent trials, each a success with probability `p`, give `k`
/// successes or more (`at_least`), or `k` or fewer: how likely a count at least that far out is
/// by chance alone. Summed in log space, so that `n` in the thousands does not underflow.
pub fn binomial_tail(n: u64, k: u64, p: f64, at_least: bool) -> f64 {
    let p = p.clamp(0.0, 1.0);
    let range = if at_least { k..=n } else { 0..=k.min(n) };
    // ln C(n, j), kept up to date as j walks up from 0.
    let mut ln_choose = 0.0;
    let mut total = 0.0;
    for j in 0..=n {
        if range.contains(&j) {
            let ln_p = ln_times(j, p) + ln_times(n - j, 1.0 - p);
            total += (ln_choose + ln_p).exp();
        }
        if j < n {
            ln_choose += ((n - j) as f64).ln() - ((j + 1) as f64).ln();
        }
    }
    total.min(1.0)
}

/// `times · ln(p)`, with 0 · ln(0) taken as 0 (certain failure happens zero times for sure).
fn ln_times(times: u64, p: f64) -> f64 {
    if times == 0 {
        0.0
    } else {
        times as f64 * p.ln()
    }
}

/// Residual sum of squares below `PERFECT_FIT_REL · Σy²` counts as zero: an RMS
/// residual 10⁻¹² of the data's RMS size is floating-point noise, not misfit.
const PERFECT_FIT_REL: f64 = 1e-24;

/// Two-sided 95% critical value of Student's t distribution (upper 2.5%
/// quantile) for `dof` degrees of freedom.
///
/// Tabulated for 1..=30; beyond that the normal value 1.96 is used (slightly
/// liberal below ~120 dof, where the exact value is still up to 2.04). With no
/// degrees of freedom no test is possible, so the value is infinite.
fn t_critical_95(dof: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, // 1-10
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, // 11-20
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042, // 21-30
    ];
    match dof {
        0 => f64::INFINITY,
        1..=30 => TABLE[dof - 1],
        _ => 1.96,
    }
}

/// `1 − SS_res / SS_tot` for observations `ys`. When `ys` is (numerically)
/// constant, SS_tot is ~0 and the ratio meaningless: a fit that is also exact
/// scores 1, anything else 0.
fn r_squared(ss_res: f64, ys: &[f64]) -> f64 {
    let n = ys.len() as f64;
    let my = ys.iter().sum::<f64>() / n;
    let ss_tot: f64 = ys.iter().map(|y| (y - my) * (y - my)).sum();
    let tol = PERFECT_FIT_REL * ys.iter().map(|y| y * y).sum::<f64>();
    if ss_tot <= tol {
        if ss_res <= tol { 1.0 } else { 0.0 }
    } else {
        1.0 - ss_res / ss_tot
    }
}

/// Solves the 3×3 system `m · x = rhs` by Gaussian elimination with partial
/// pivoting; `None` if `m` is singular to working precision.
fn solve3(mut m: [[f64; 3]; 3], mut rhs: [f64; 3]) -> Option<[f64; 3]> {
    let scale = m.iter().flatten().fold(0.0_f64, |acc, v| acc.max(v.abs()));
    if scale == 0.0 {
        return None;
    }
    for col in 0..3 {
        // Largest remaining entry in this column becomes the pivot.
        let pivot_row = (col..3).max_by(|&r, &s| m[r][col].abs().total_cmp(&m[s][col].abs()))?;
        if m[pivot_row][col].abs() <= 1e-12 * scale {
            return None;
        }
        m.swap(col, pivot_row);
        rhs.swap(col, pivot_row);
        for row in col + 1..3 {
            let f = m[row][col] / m[col][col];
            let pivot = m[col];
            for (dst, src) in m[row].iter_mut().zip(pivot).skip(col) {
                *dst -= f * src;
            }
            rhs[row] -= f * rhs[col];
        }
    }
    // Back substitution.
    let mut x = [0.0; 3];
    for row in (0..3).rev() {
        let tail: f64 = (row + 1..3).map(|j| m[row][j] * x[j]).sum();
        x[row] = (rhs[row] - tail) / m[row][row];
    }
    Some(x)
}

fn all_finite(v: &[f64]) -> bool {
    v.iter().all(|x| x.is_finite())
}

#[cfg(test)]
mod tests;
