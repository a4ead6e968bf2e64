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

    /// Per-round ratios `(self - floor) / (other - floor)`, round r against round r. Compared
    /// dispatches run close together in each round, so drift between rounds (clocks, a busy
    /// neighbour on a shared CPU) cancels in each pair, which a ratio of two medians does not do.
    /// Rounds beyond the shorter of the two (extra rounds of a noisy group) are left out.
    pub fn round_ratios(&self, other: &Timing, floor: f64) -> Vec<f64> {
        self.samples
            .iter()
            .zip(&other.samples)
            .filter_map(|(&a, &b)| stats::floor_corrected(a, b, floor))
            .collect()
    }

    /// `self / other` with the dispatch floor taken out of both, its 95% interval, and the raw
    /// ratio beside it.
    pub fn ratio_to(&self, other: &Timing, floor: f64) -> Ratio {
        let corrected = self.round_ratios(other, floor);
        let raw = self.round_ratios(other, 0.0);
        let median = |r: &[f64]| stats::summarize(r).map_or(f64::NAN, |s| s.median);
        Ratio {
            value: median(&corrected),
            raw: median(&raw),
            interval: stats::median_interval(&corrected),
            rounds: corrected,
        }
    }
}

/// A ratio of two times behind a verdict.
#[derive(Clone, Debug)]
pub struct Ratio {
    /// Floor-corrected: the median over rounds of `(T - floor) / (T_ref - floor)`.
    pub value: f64,
    /// The same without the floor correction.
    pub raw: f64,
    /// 95% bootstrap interval of `value`; `None` when it cannot be formed.
    pub interval: Option<stats::Interval>,
    /// The corrected per-round ratios.
    pub rounds: Vec<f64>,
}

impl Ratio {
    /// The interval, or the point itself where there is none.
    pub fn bounds(&self) -> (f64, f64) {
        self.interval
            .map_or((self.value, self.value), |i| (i.low, i.high))
    }

    /// Records `name` (corrected), `name_raw`, `name_ci_low` and `name_ci_high`.
    pub fn record(&self, result: &mut ExperimentResult, name: &str) {
        let (low, high) = self.bounds();
        result.metric(name, self.value);
        result.metric(&format!("{name}_raw"), self.raw);
        result.metric(&format!("{name}_ci_low"), low);
        result.metric(&format!("{name}_ci_high"), high);
    }

    /// "7.91 (95% interval 7.80..8.02; raw 7.70)".
    pub fn describe(&self, digits: usize) -> String {
        let (low, high) = self.bounds();
        format!(
            "{:.digits$} (95% interval {low:.digits$}..{high:.digits$}; raw {:.digits$})",
            self.value, self.raw
        )
    }
}

/// The verdict of a claim whose 95% interval must lie within `[min, max]`, and a sentence that
/// says so when the interval straddles a limit.
fn interval_verdict(low: f64, high: f64, min: f64, max: f64) -> (VerdictStatus, String) {
    let status = VerdictStatus::decided_by_interval(low, high, min, max);
    let note = if status == VerdictStatus::Inconclusive {
        let limit = if low < min && high >= min { min } else { max };
        format!("; inconclusive: the interval [{low:.3}, {high:.3}] straddles the limit {limit:.3}")
    } else {
        String::new()
    };
    (status, note)
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

/// The k = SG pair at two trip counts, timed in the same rounds: what the path work costs, with
/// everything else the dispatch costs (its floor, each invocation's selector and store, the
/// launch of its workgroups) taken out by the difference.
#[derive(Clone, Debug)]
pub struct Marginal {
    /// Loop trips per path of the study.
    pub trips: u32,
    /// The fewer trips of the second pair.
    pub fewer: u32,
    /// Lane-divergent at `trips`.
    pub div: Timing,
    /// Subgroup-uniform control at `trips`.
    pub uniform: Timing,
    /// Lane-divergent at `fewer`.
    pub div_fewer: Timing,
    /// Subgroup-uniform control at `fewer`.
    pub uniform_fewer: Timing,
}

impl Marginal {
    /// F(SG) on the path work: per round, `(T_div - T_div,fewer) / (T_uniform -
    /// T_uniform,fewer)`; `raw` is `T_div / T_uniform` of the same rounds.
    pub fn ratio(&self) -> Ratio {
        let rounds = difference_ratios(
            [
                &self.div,
                &self.uniform,
                &self.div_fewer,
                &self.uniform_fewer,
            ]
            .map(|t| &t.samples[..]),
        );
        let median = |r: &[f64]| stats::summarize(r).map_or(f64::NAN, |s| s.median);
        Ratio {
            value: median(&rounds),
            raw: median(&self.div.round_ratios(&self.uniform, 0.0)),
            interval: stats::median_interval(&rounds),
            rounds,
        }
    }

    /// What the dispatch costs besides its path work, `(divergent, uniform)` in ns: each
    /// timing extrapolated to zero trips from the two trip counts.
    pub fn fixed_costs(&self) -> (f64, f64) {
        let n = f64::from(self.trips);
        let fewer = f64::from(self.fewer);
        let at_zero = |many: &Timing, few: &Timing| {
            let per_trip = (many.time() - few.time()) / (n - fewer);
            many.time() - per_trip * n
        };
        (
            at_zero(&self.div, &self.div_fewer),
            at_zero(&self.uniform, &self.uniform_fewer),
        )
    }
}

/// Per round r, `(div[r] - div_fewer[r]) / (uniform[r] - uniform_fewer[r])` from the samples of
/// `[div, uniform, div_fewer, uniform_fewer]`; a round whose uniform difference is not positive
/// (noise larger than the work) is left out. Rounds beyond the shortest list are left out.
pub fn difference_ratios([div, uniform, div_fewer, uniform_fewer]: [&[f64]; 4]) -> Vec<f64> {
    let rounds = div
        .len()
        .min(uniform.len())
        .min(div_fewer.len())
        .min(uniform_fewer.len());
    (0..rounds)
        .map(|r| (div[r] - div_fewer[r], uniform[r] - uniform_fewer[r]))
        .filter(|&(_, u)| u > 0.0)
        .map(|(d, u)| d / u)
        .collect()
}

/// The normalized penalty at one occupancy level, at k = SG.
#[derive(Clone, Debug)]
pub struct OccupancyPoint {
    /// Workgroup size.
    pub workgroup_size: u32,
    /// Invocations in the dispatch.
    pub invocations: u32,
    /// Loop trips per path, calibrated for this level.
    pub trips: u32,
    /// Lane-divergent.
    pub div: Timing,
    /// Subgroup-uniform.
    pub uniform: Timing,
    /// An empty dispatch of this level's pipeline: its dispatch floor.
    pub floor: Timing,
}

/// Everything the study measured for one form.
#[derive(Clone, Debug)]
pub struct Measurements {
    /// The subgroup size the study's pipelines ran with.
    pub subgroup_size: u32,
    /// Per-k timings, in k order.
    pub points: Vec<KPoint>,
    /// The main sweep's dispatch floor: an empty dispatch of its pipeline.
    pub floor: Timing,
    /// The k = SG pair at a second trip count, where the trips allowed one.
    pub marginal: Option<Marginal>,
    /// Occupancy sweep.
    pub occupancy: Vec<OccupancyPoint>,
    /// (balanced, unbalanced) at the same total work, when the form has them.
    pub unbalanced: Option<(u32, Timing, Timing)>,
    /// Loop form only: T_div(SG) and a subgroup-uniform control with the same *mix* of trip
    /// counts as the divergent dispatch (the control before per-subgroup trips were equalized),
    /// kept as a diagnostic of the scheduling tail.
    pub mixed_control: Option<(Timing, Timing)>,
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
    let floor = m.floor.time();
    result.metric("dispatch_floor_ns", floor);
    add_series(m, result);

    let ks: Vec<f64> = within.iter().map(|p| f64::from(p.k)).collect();
    let t_div: Vec<f64> = within.iter().map(|p| p.div.time()).collect();
    add_fits(m, &within, &ks, &t_div, at_sg, result);
    add_serialization(m, at_sg, floor, result);
    add_control(m, &within, &ks, first, at_sg, floor, result);
    add_predication(first, at_sg, floor, result);
    add_occupancy(m, result);
    add_unbalanced(m, floor, result);
    add_noise(m, result);
    result.metric("baseline_gflops", m.baseline_flops / first.div.time());
}

/// F(SG) = T_div/T_uniform at the subgroup size, floor-corrected, against the SIMT model's
/// efficiency SG/k.
fn add_serialization(m: &Measurements, at_sg: &KPoint, floor: f64, result: &mut ExperimentResult) {
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
fn add_predication(first: &KPoint, at_sg: &KPoint, floor: f64, result: &mut ExperimentResult) {
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
fn add_unbalanced(m: &Measurements, floor: f64, result: &mut ExperimentResult) {
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
fn add_noise(m: &Measurements, result: &mut ExperimentResult) {
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

/// The linear and quadratic fits of T_div(k) over k <= SG, and for the loop form the max-path
/// against the sum-of-paths model. Fits are over raw medians: the floor is the intercept.
fn add_fits(
    m: &Measurements,
    within: &[&KPoint],
    ks: &[f64],
    t_div: &[f64],
    at_sg: &KPoint,
    result: &mut ExperimentResult,
) {
    let sg = m.subgroup_size;
    // Linearity is judged on T_div(k) read against the k = 1 control timed beside it in each
    // round, as the ratios are: drift between one k's group and the next (a busy neighbour on a
    // shared CPU) cancels, where a fit of median times over the groups would absorb it.
    let clocked: Vec<f64> = within
        .iter()
        .map(|p| {
            let rounds = p.div.round_ratios(&p.uniform_ref, m.floor.time());
            stats::summarize(&rounds).map_or(f64::NAN, |s| s.median)
        })
        .collect();
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
    if let Some(q) = stats::fit_quadratic(ks, t_div) {
        result.metric("quadratic_c_ns", q.c);
        result.metric("quadratic_t_stat", q.c_t_stat);
        let share = q.c * f64::from(sg * sg) / at_sg.div.time();
        let superlinear = q.c_significant && q.c > 0.0 && share > limits::SUPERLINEAR_SHARE;
        result.verdict(
            "no_superlinear",
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
fn add_control(
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
    let median = |r: &[f64]| stats::summarize(r).map_or(f64::NAN, |s| s.median);
    // Beyond SG the control runs more distinct code than fits the instruction cache on some
    // devices; that is a code-size cost, not divergence, so the flatness check stops at SG.
    let deviation_of = |p: &KPoint| (median(&on_model(p)) - 1.0).abs();
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
    let medians: Vec<f64> = rounds.iter().map(|r| median(r)).collect();
    let trend = trend_of(&medians);
    let sets: Vec<&[f64]> = rounds.iter().map(Vec::as_slice).collect();
    let (low, high) =
        stats::bootstrap_medians(&sets, trend_of).map_or((trend, trend), |i| (i.low, i.high));
    result.metric("uniform_trend_at_sg", trend);
    result.metric("uniform_trend_at_sg_ci_low", low);
    result.metric("uniform_trend_at_sg_ci_high", high);
    result.metric("uniform_max_deviation", deviation);
    result.metric("uniform_max_deviation_beyond_sg", beyond);
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

fn add_occupancy(m: &Measurements, result: &mut ExperimentResult) {
    let penalties: Vec<Ratio> = m
        .occupancy
        .iter()
        .map(|o| o.div.ratio_to(&o.uniform, o.floor.time()))
        .collect();
    let values: Vec<f64> = penalties.iter().map(|p| p.value).collect();
    let Some(summary) = stats::summarize(&values) else {
        return;
    };
    let spread_of = |medians: &[f64]| {
        stats::summarize(medians).map_or(f64::NAN, |s| (s.max - s.min) / s.median)
    };
    let spread = spread_of(&values);
    let sets: Vec<&[f64]> = penalties.iter().map(|p| p.rounds.as_slice()).collect();
    let (low, high) =
        stats::bootstrap_medians(&sets, spread_of).map_or((spread, spread), |i| (i.low, i.high));
    result.metric("occupancy_spread", spread);
    result.metric("occupancy_spread_ci_low", low);
    result.metric("occupancy_spread_ci_high", high);
    let raw: Vec<f64> = penalties.iter().map(|p| p.raw).collect();
    result.metric("occupancy_spread_raw", spread_of(&raw));
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
            "floor-corrected T_div/T_uniform at k = {} over {} levels, each calibrated to its own \
             trip count: {:.2}..{:.2}, spread {:.1}% (95% interval {:.1}%..{:.1}%, limit {:.0}%; \
             raw spread {:.1}%); lowest at workgroup {} x {} invocations; the floor is at most \
             {:.1}% of a level's uniform dispatch{note}",
            m.occupancy_k,
            values.len(),
            summary.min,
            summary.max,
            spread * 100.0,
            low * 100.0,
            high * 100.0,
            limits::OCCUPANCY_SPREAD * 100.0,
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
    let floor = m.floor.time();
    let ratio = |f: &dyn Fn(f64) -> f64| {
        m.points
            .iter()
            .map(|p| {
                let r = p.div.ratio_to(&p.uniform, floor);
                let (low, high) = r.bounds();
                // An efficiency is a decreasing function of F: its bounds swap.
                let (a, b) = (f(low), f(high));
                Point {
                    x: f64::from(p.k),
                    y: f(r.value),
                    y_min: Some(a.min(b)),
                    y_max: Some(a.max(b)),
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
        ratio(&|f| f),
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
        ratio(&|f| sg / f),
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

    #[test]
    fn occupancy_levels_are_corrected_by_their_own_floor() {
        // Two levels with the same work ratio (32) but floors of 7 us and 1 us; raw, the
        // sparse level looks occupancy-dependent.
        let level = |invocations, work: f64, floor: f64| OccupancyPoint {
            workgroup_size: 64,
            invocations,
            trips: 1,
            div: exact(floor + 32.0 * work),
            uniform: exact(floor + work),
            floor: exact(floor),
        };
        let mut m = simt(32, 0.0);
        m.occupancy = vec![
            level(16_384, 4_000.0, 7_000.0),
            level(1 << 20, 250_000.0, 1_000.0),
        ];
        let r = analyzed(&m);
        assert!(r.metrics["occupancy_spread"].abs() < 1e-9);
        assert!(r.metrics["occupancy_spread_raw"] > 0.5);
        assert_eq!(status(&r, "occupancy"), VerdictStatus::Consistent);
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
}
