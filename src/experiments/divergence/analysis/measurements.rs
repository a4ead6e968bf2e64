//! What the study measured, by configuration: per k, at two trip counts, per occupancy level.

use super::{Ratio, Timing};

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
        difference_ratio([
            &self.div,
            &self.uniform,
            &self.div_fewer,
            &self.uniform_fewer,
        ])
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

/// The ratio on the path work of `[div, uniform, div_fewer, uniform_fewer]`: the median over
/// rounds of [`difference_ratios`], with `raw` the plain `T_div / T_uniform` of the same rounds.
fn difference_ratio(timings: [&Timing; 4]) -> Ratio {
    let rounds = difference_ratios(timings.map(|t| &t.samples[..]));
    let [div, uniform, ..] = timings;
    Ratio::of_rounds(rounds, &div.round_ratios(uniform, 0.0))
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
    /// The level again at fewer trips, in the same rounds (`None` where its trips are too few
    /// to quarter).
    pub fewer: Option<FewerTrips>,
}

/// An occupancy level's pair again at fewer trips.
#[derive(Clone, Debug)]
pub struct FewerTrips {
    /// Loop trips per path.
    pub trips: u32,
    /// Lane-divergent.
    pub div: Timing,
    /// Subgroup-uniform.
    pub uniform: Timing,
}

impl OccupancyPoint {
    /// The level's T_div / T_uniform on its path work, from the two trip counts: whatever the
    /// dispatch costs besides cancels. Floor-corrected where it ran at one trip count only.
    pub fn penalty(&self) -> Ratio {
        match &self.fewer {
            Some(f) => difference_ratio([&self.div, &self.uniform, &f.div, &f.uniform]),
            None => self.floor_corrected(),
        }
    }

    /// The level's floor-corrected T_div / T_uniform.
    pub fn floor_corrected(&self) -> Ratio {
        self.div.ratio_to(&self.uniform, self.floor.time())
    }
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
