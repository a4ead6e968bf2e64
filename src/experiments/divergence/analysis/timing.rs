//! Timings of one configuration and the floor-corrected ratios of two, with their intervals.

use crate::report::{ExperimentResult, VerdictStatus};
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
        Ratio::of_rounds(
            self.round_ratios(other, floor),
            &self.round_ratios(other, 0.0),
        )
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
    /// The ratio of per-round `rounds`, with `raw` the uncorrected ratios of the same rounds:
    /// their medians, and the interval of the first.
    pub fn of_rounds(rounds: Vec<f64>, raw: &[f64]) -> Self {
        Self {
            value: stats::median(&rounds),
            raw: stats::median(raw),
            interval: stats::median_interval(&rounds),
            rounds,
        }
    }

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
pub(super) fn interval_verdict(low: f64, high: f64, min: f64, max: f64) -> (VerdictStatus, String) {
    let status = VerdictStatus::decided_by_interval(low, high, min, max);
    let note = if status == VerdictStatus::Inconclusive {
        let limit = if low < min && high >= min { min } else { max };
        format!("; inconclusive: the interval [{low:.3}, {high:.3}] straddles the limit {limit:.3}")
    } else {
        String::new()
    };
    (status, note)
}
