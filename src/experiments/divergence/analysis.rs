//! From timings to claims: fits, serialization factors, efficiency and the verdicts of the
//! divergence study. Pure maths over medians; no GPU here.

use crate::report::{ExperimentResult, Point, Series, VerdictStatus};
use crate::stats::{self, Summary};

/// One configuration's repetitions, in round order, and their summary.
#[derive(Clone, Debug)]
pub struct Timing {
    /// Median, spread and CV of the repetitions.
    pub summary: Summary,
    /// Repetition r of every configuration is from round r.
    pub samples: Vec<f64>,
}

impl Timing {
    /// Summarizes repetitions; `None` when empty or not finite.
    pub fn new(samples: Vec<f64>) -> Option<Self> {
        Some(Self {
            summary: stats::summarize(&samples)?,
            samples,
        })
    }

    /// The median repetition, in ns.
    pub fn time(&self) -> f64 {
        self.summary.median
    }

    /// `self / other`: the median over rounds of the per-round ratio. Compared dispatches run
    /// close together in each round, so drift between rounds (clocks, a busy neighbour on a
    /// shared CPU) cancels in each pair, which a ratio of two medians does not do.
    pub fn ratio_to(&self, other: &Timing) -> f64 {
        let ratios: Vec<f64> = self
            .samples
            .iter()
            .zip(&other.samples)
            .map(|(a, b)| a / b)
            .collect();
        stats::summarize(&ratios).map_or(f64::NAN, |s| s.median)
    }
}

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

/// Timings of one k.
#[derive(Clone, Debug)]
pub struct KPoint {
    /// Number of paths.
    pub k: u32,
    /// Lane-divergent selector.
    pub div: Timing,
    /// Subgroup-uniform control.
    pub uniform: Timing,
    /// Predicated (branch-free) variant.
    pub pred: Timing,
    /// The k = 1 control, run beside this point's dispatches: the clock that `uniform` is
    /// read against, so drift between points cancels.
    pub uniform_ref: Timing,
    /// Loop trips the SIMT model says the divergent dispatch issues.
    pub model_div: f64,
    /// ... and the uniform control.
    pub model_uniform: f64,
    /// Sum-of-paths model: every distinct lane trip count as its own serialized path.
    pub model_sum_of_paths: f64,
}

/// The normalized penalty at one occupancy level, at k = SG.
#[derive(Clone, Debug)]
pub struct OccupancyPoint {
    /// Workgroup size.
    pub workgroup_size: u32,
    /// Invocations in the dispatch.
    pub invocations: u32,
    /// Lane-divergent.
    pub div: Timing,
    /// Subgroup-uniform.
    pub uniform: Timing,
}

/// Everything the study measured for one form.
#[derive(Clone, Debug)]
pub struct Measurements {
    /// Observed subgroup size.
    pub subgroup_size: u32,
    /// Per-k timings, in k order.
    pub points: Vec<KPoint>,
    /// Occupancy sweep.
    pub occupancy: Vec<OccupancyPoint>,
    /// (balanced, unbalanced) at the same total work, when the form has them.
    pub unbalanced: Option<(u32, Timing, Timing)>,
    /// Flops of the k = 1 lane-divergent dispatch.
    pub baseline_flops: f64,
    /// Whether the form's model is max-path (loops) rather than sum-of-paths (branches).
    pub loop_form: bool,
    /// The k of the occupancy sweep.
    pub occupancy_k: u32,
}

/// Adds the study's metrics, series and verdicts to `result`.
pub fn analyze(m: &Measurements, result: &mut ExperimentResult) {
    let sg = m.subgroup_size;
    let within: Vec<&KPoint> = m.points.iter().filter(|p| p.k <= sg).collect();
    let Some(first) = m.points.first() else {
        return;
    };
    let at_sg = within.last().copied().unwrap_or(first);
    add_series(m, result);

    let ks: Vec<f64> = within.iter().map(|p| f64::from(p.k)).collect();
    let t_div: Vec<f64> = within.iter().map(|p| p.div.time()).collect();
    let t_div_medians: Vec<f64> = within.iter().map(|p| p.div.summary.median).collect();
    if let Some(fit) = stats::fit_linear(&ks, &t_div_medians) {
        result.metric("r2_medians", fit.r2);
    }
    let linear = stats::fit_linear(&ks, &t_div);
    let quadratic = stats::fit_quadratic(&ks, &t_div);
    if let Some(fit) = linear {
        result.metric("slope_s_ns", fit.slope);
        result.metric("intercept_ns", fit.intercept);
        result.metric("r2", fit.r2);
        result.verdict(
            format!("T(k) = a + s*k for k <= {sg} (linear serialization)"),
            VerdictStatus::consistent_if(fit.r2 >= limits::MIN_R2),
            format!(
                "s = {:.0} ns/path, a = {:.0} ns, R^2 = {:.4} (needs >= {})",
                fit.slope,
                fit.intercept,
                fit.r2,
                limits::MIN_R2
            ),
        );
    }
    if let Some(q) = quadratic {
        result.metric("quadratic_c_ns", q.c);
        result.metric("quadratic_t_stat", q.c_t_stat);
        let share = q.c * f64::from(sg * sg) / at_sg.div.time();
        let superlinear = q.c_significant && q.c > 0.0 && share > limits::SUPERLINEAR_SHARE;
        result.verdict(
            "no super-linear reconvergence penalty",
            VerdictStatus::consistent_if(!superlinear),
            format!(
                "quadratic term c = {:.2} ns/path^2 (t = {:.1}, {}), {:.1}% of T({sg})",
                q.c,
                q.c_t_stat,
                if q.c_significant {
                    "significant"
                } else {
                    "not significant"
                },
                share * 100.0
            ),
        );
    }
    if m.loop_form {
        let fit_model = |model: &dyn Fn(&KPoint) -> f64| {
            let xs: Vec<f64> = within.iter().map(|p| model(p)).collect();
            stats::fit_linear(&xs, &t_div).map(|f| f.r2)
        };
        let r2_max = fit_model(&|p| p.model_div);
        let r2_sum = fit_model(&|p| p.model_sum_of_paths);
        if let (Some(r2_max), Some(r2_sum)) = (r2_max, r2_sum) {
            result.metric("r2_max_path", r2_max);
            result.metric("r2_sum_of_paths", r2_sum);
            result.verdict(
                "a divergent loop costs its longest lane (max-path model)",
                VerdictStatus::consistent_if(r2_max >= limits::MIN_R2 && r2_max >= r2_sum),
                format!("R^2 max-path = {r2_max:.4}, sum-of-paths = {r2_sum:.4}"),
            );
        }
    }

    let f_sg = at_sg.div.ratio_to(&at_sg.uniform);
    let f_model = at_sg.model_div / at_sg.model_uniform;
    result.metric("serialization_at_sg", f_sg);
    result.metric("serialization_model_at_sg", f_model);
    result.verdict(
        format!("efficiency falls as {sg}/k: F({}) matches the SIMT model", at_sg.k),
        VerdictStatus::consistent_if(
            (f_sg / f_model - 1.0).abs() <= limits::SERIALIZATION_TOLERANCE,
        ),
        format!(
            "F({}) = T_div/T_uniform = {f_sg:.2}, model {f_model:.2}, efficiency {:.2} of {sg} lanes",
            at_sg.k,
            f64::from(sg) / f_sg
        ),
    );

    // Beyond SG the control runs more distinct code than fits the instruction cache on some
    // devices; that is a code-size cost, not divergence, so the flatness check stops at SG.
    let deviation_of = |p: &&KPoint| {
        let measured = p.uniform.ratio_to(&p.uniform_ref);
        let model = p.model_uniform / first.model_uniform;
        (measured / model - 1.0).abs()
    };
    let deviation = within.iter().map(deviation_of).fold(0.0, f64::max);
    let beyond = m
        .points
        .iter()
        .filter(|p| p.k > sg)
        .map(|p| deviation_of(&p))
        .fold(0.0, f64::max);
    // Flatness is judged on the fitted trend over k <= SG, not on the worst single point:
    // on a noisy device (lavapipe on 2 shared cores) one median can stray while the trend holds.
    let on_model: Vec<f64> = within
        .iter()
        .map(|p| p.uniform.ratio_to(&p.uniform_ref) / (p.model_uniform / first.model_uniform))
        .collect();
    let trend = stats::fit_linear(&ks, &on_model).map_or(0.0, |fit| {
        let at = |k: f64| fit.intercept + fit.slope * k;
        at(f64::from(at_sg.k)) / at(f64::from(first.k)) - 1.0
    });
    result.metric("uniform_trend_at_sg", trend);
    result.metric("uniform_max_deviation", deviation);
    result.metric("uniform_max_deviation_beyond_sg", beyond);
    let control = if m.loop_form {
        "divergence across subgroups costs only its mean trip count (uniform control on model)"
    } else {
        "divergence across subgroups is free (uniform control flat)"
    };
    result.verdict(
        control,
        VerdictStatus::consistent_if(trend.abs() <= limits::UNIFORM_FLAT),
        format!(
            "T_uniform(k)/T_uniform(1) against the model: fitted trend {:+.1}% from k = 1 to {} \
             (limit {:.0}%), worst single point {:.1}%; {:.1}% beyond {sg}, where code size \
             rather than divergence can dominate",
            trend * 100.0,
            at_sg.k,
            limits::UNIFORM_FLAT * 100.0,
            deviation * 100.0,
            beyond * 100.0
        ),
    );

    let pred_ratio = at_sg.pred.ratio_to(&first.pred);
    result.metric("predicated_ratio_at_sg", pred_ratio);
    result.verdict(
        "predication removes the serialization cost",
        VerdictStatus::consistent_if(pred_ratio <= limits::PREDICATED_MAX_RATIO),
        format!(
            "T_pred({})/T_pred(1) = {pred_ratio:.3} (limit {}), vs T_div ratio {:.2}",
            at_sg.k,
            limits::PREDICATED_MAX_RATIO,
            at_sg.div.ratio_to(&first.div)
        ),
    );

    add_occupancy(m, result);
    if let Some((k, balanced, unbalanced)) = &m.unbalanced {
        let ratio = unbalanced.ratio_to(balanced);
        result.metric("unbalanced_ratio", ratio);
        result.verdict(
            format!("unbalanced paths cost the sum of their paths (k = {k})"),
            VerdictStatus::consistent_if((ratio - 1.0).abs() <= limits::UNBALANCED_TOLERANCE),
            format!(
                "one heavy path and {} light ones took {ratio:.3}x balanced paths of the same total work",
                k - 1
            ),
        );
    }

    result.metric("baseline_gflops", m.baseline_flops / first.div.time());
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

fn add_occupancy(m: &Measurements, result: &mut ExperimentResult) {
    let penalties: Vec<f64> = m
        .occupancy
        .iter()
        .map(|o| o.div.ratio_to(&o.uniform))
        .collect();
    let Some(summary) = stats::summarize(&penalties) else {
        return;
    };
    let spread = (summary.max - summary.min) / summary.median;
    result.metric("occupancy_spread", spread);
    let largest = m.occupancy.iter().map(|o| o.invocations).max().unwrap_or(0);
    let saturated: Vec<f64> = m
        .occupancy
        .iter()
        .zip(&penalties)
        .filter(|(o, _)| o.invocations == largest)
        .map(|(_, p)| *p)
        .collect();
    let saturated_spread = stats::summarize(&saturated).map_or(0.0, |s| (s.max - s.min) / s.median);
    result.metric("occupancy_spread_saturated", saturated_spread);
    let (lowest, _) = m
        .occupancy
        .iter()
        .zip(&penalties)
        .min_by(|a, b| a.1.total_cmp(b.1))
        .expect("penalties is not empty");
    result.verdict(
        "the penalty does not depend on occupancy",
        VerdictStatus::consistent_if(spread <= limits::OCCUPANCY_SPREAD),
        format!(
            "T_div/T_uniform at k = {} over {} levels: {:.2}..{:.2}, spread {:.1}% (limit {:.0}%); \
             lowest at workgroup {} x {} invocations; spread over workgroup sizes at the \
             saturating dispatch: {:.1}%",
            m.occupancy_k,
            penalties.len(),
            summary.min,
            summary.max,
            spread * 100.0,
            limits::OCCUPANCY_SPREAD * 100.0,
            lowest.workgroup_size,
            lowest.invocations,
            saturated_spread * 100.0
        ),
    );
    let mut sizes: Vec<u32> = m.occupancy.iter().map(|o| o.workgroup_size).collect();
    sizes.dedup();
    for wg in sizes {
        let points = m
            .occupancy
            .iter()
            .filter(|o| o.workgroup_size == wg)
            .map(|o| Point {
                x: f64::from(o.invocations),
                y: o.div.ratio_to(&o.uniform),
                y_min: None,
                y_max: None,
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

fn add_series(m: &Measurements, result: &mut ExperimentResult) {
    let timed = |pick: fn(&KPoint) -> &Timing| {
        m.points
            .iter()
            .map(|p| {
                let t = pick(p);
                Point {
                    x: f64::from(p.k),
                    y: t.time(),
                    y_min: Some(t.summary.min),
                    y_max: Some(t.summary.max),
                }
            })
            .collect()
    };
    let plain = |f: &dyn Fn(&KPoint) -> f64| {
        m.points
            .iter()
            .map(|p| Point {
                x: f64::from(p.k),
                y: f(p),
                y_min: None,
                y_max: None,
            })
            .collect()
    };
    let sg = f64::from(m.subgroup_size);
    result
        .series
        .push(series("t_div", "k", "time (ns)", timed(|p| &p.div)));
    result
        .series
        .push(series("t_uniform", "k", "time (ns)", timed(|p| &p.uniform)));
    result
        .series
        .push(series("t_pred", "k", "time (ns)", timed(|p| &p.pred)));
    result.series.push(series(
        "serialization",
        "k",
        "F(k) = T_div/T_uniform",
        plain(&|p| p.div.ratio_to(&p.uniform)),
    ));
    result.series.push(series(
        "serialization_model",
        "k",
        "F(k) = T_div/T_uniform",
        plain(&|p| p.model_div / p.model_uniform),
    ));
    result.series.push(series(
        "efficiency",
        "k",
        "active lanes per issue (SG/F)",
        plain(&|p| sg / p.div.ratio_to(&p.uniform)),
    ));
    result.series.push(series(
        "efficiency_model",
        "k",
        "active lanes per issue (SG/F)",
        plain(&|p| sg * p.model_uniform / p.model_div),
    ));
}

fn series(name: &str, x: &str, y: &str, points: Vec<Point>) -> Series {
    Series {
        name: name.to_owned(),
        x_label: x.to_owned(),
        y_label: y.to_owned(),
        points,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{ExperimentResult, Rule};

    fn exact(v: f64) -> Timing {
        Timing::new(vec![v]).unwrap()
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
            occupancy: vec![],
            unbalanced: None,
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
}
