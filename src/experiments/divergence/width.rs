//! The subgroup width from timing alone: with the lane-divergent selector, a subgroup of W lanes
//! holds at most W distinct paths, so F(k) grows about linearly up to W and is flat beyond it.
//! A broken line F = a + b·min(k, W) is fitted for every power-of-two W that WGSL allows; the
//! best fit's W is the inferred width. Pure maths; no GPU here.

use crate::stats;

/// Widths WGSL allows: powers of two in [4, 128].
const WIDTHS: [u32; 6] = [4, 8, 16, 32, 64, 128];

/// Widths whose fit is within this factor of the best fit's residual are also consistent with
/// the timings (a device with a varying width, or noise, shows as several).
const CANDIDATE_FACTOR: f64 = 2.0;

/// What timing says about the subgroup width.
#[derive(Clone, Debug, PartialEq)]
pub struct WidthInference {
    /// The width of the best broken-line fit.
    pub width: u32,
    /// Every width whose fit's residual is within [`CANDIDATE_FACTOR`] of the best.
    pub candidates: Vec<u32>,
    /// R² of the best fit.
    pub r2: f64,
    /// F at the largest k over F at `width`: about 1 when the plateau is flat.
    pub plateau: f64,
    /// True when no k beyond `width` was measured: timing then shows only width >= it.
    pub at_least: bool,
}

/// Infers the width from `(k, F(k))` points, in k order. `None` with fewer than three points
/// or no positive slope.
pub fn infer_width(points: &[(u32, f64)]) -> Option<WidthInference> {
    let max_k = points.iter().map(|&(k, _)| k).max()?;
    if points.len() < 3 || points.iter().any(|(_, f)| !f.is_finite()) {
        return None;
    }
    let ys: Vec<f64> = points.iter().map(|&(_, f)| f).collect();
    let fits: Vec<(u32, f64, f64)> = WIDTHS
        .iter()
        .filter(|&&w| w <= max_k)
        .filter_map(|&w| {
            let xs: Vec<f64> = points.iter().map(|&(k, _)| f64::from(k.min(w))).collect();
            let fit = stats::fit_linear(&xs, &ys)?;
            let sse: f64 = xs
                .iter()
                .zip(&ys)
                .map(|(x, y)| (y - fit.intercept - fit.slope * x).powi(2))
                .sum();
            (fit.slope > 0.0).then_some((w, sse, fit.r2))
        })
        .collect();
    let &(width, best, r2) = fits.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let candidates = fits
        .iter()
        .filter(|(_, sse, _)| *sse <= best * CANDIDATE_FACTOR + f64::EPSILON)
        .map(|&(w, _, _)| w)
        .collect();
    let f_at = |k: u32| {
        points
            .iter()
            .find(|&&(x, _)| x == k)
            .map_or(f64::NAN, |&(_, f)| f)
    };
    Some(WidthInference {
        width,
        candidates,
        r2,
        plateau: f_at(max_k) / f_at(width),
        at_least: width >= max_k,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simt(width: u32, ks: &[u32], noise: &[f64]) -> Vec<(u32, f64)> {
        ks.iter()
            .zip(noise.iter().cycle())
            .map(|(&k, n)| (k, f64::from(k.min(width)) * 0.97 * (1.0 + n)))
            .collect()
    }

    #[test]
    fn the_knee_is_the_width() {
        let ks: Vec<u32> = (1..=32).chain([48, 64, 96, 128]).collect();
        let noise = [0.03, -0.02, 0.01, -0.04, 0.02];
        for width in [4, 8, 16, 32, 64] {
            let inferred = infer_width(&simt(width, &ks, &noise)).unwrap();
            assert_eq!(inferred.width, width, "{inferred:?}");
            assert!(!inferred.at_least);
            assert!((inferred.plateau - 1.0).abs() < 0.1, "{inferred:?}");
        }
        // A quick lavapipe sweep: k = 1..8 and 16.
        let quick = simt(8, &[1, 2, 3, 4, 5, 6, 7, 8, 16], &noise);
        assert_eq!(infer_width(&quick).unwrap().width, 8);
    }

    #[test]
    fn a_width_past_the_sweep_is_only_a_lower_bound() {
        let ks: Vec<u32> = (1..=16).collect();
        let inferred = infer_width(&simt(64, &ks, &[0.0])).unwrap();
        assert_eq!(inferred.width, 16);
        assert!(inferred.at_least);
    }

    #[test]
    fn flat_timings_infer_nothing() {
        let flat: Vec<(u32, f64)> = (1..=16).map(|k| (k, 1.0)).collect();
        assert_eq!(infer_width(&flat), None);
    }
}
