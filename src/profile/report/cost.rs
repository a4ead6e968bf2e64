//! What a branch's divergence costs on the adapter that ran it (`divlab profile --cost`): the
//! measured saving of a counterfactual kernel in which the branch's subgroups do not diverge,
//! its interval, the cost model's prediction from the counts, and a verdict.

use serde::{Deserialize, Serialize};

use crate::report::units::format_ns;

/// The verdict on one branch's cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CostVerdict {
    /// The saving's 95% interval lies above zero (on a coarse timer, above a few of its steps):
    /// the device runs the branch's paths one after the other, and removing the divergence
    /// would save that time.
    Serialized,
    /// Divergent in at least 1% of evaluations, but the saving is within noise of zero (on a
    /// coarse timer, within a few of its steps: the readings' rounding, or with one buffer
    /// placement what moves between placements): the driver predicated or merged the paths, or
    /// the side the first lane skips holds little or no work (the prediction says which), so
    /// the divergence costs nothing measurable here.
    FreeHere,
    /// The counterfactual changed more than the branch (the work outside it moved by more than
    /// 1%, or the variant ran slower): its number is not a clean saving.
    Confounded,
    /// Divergent in fewer than 1% of evaluations: no variant ran.
    NotDivergent,
    /// Divergent, but not measured: past `--cost-top`, or no honest variant could be written
    /// (the reason says which).
    NotMeasured,
    /// A loop: its cost is counted (the trips lanes sat out), not measured, since a variant
    /// whose lanes agree on the trips changes the work itself.
    CountOnly,
}

impl CostVerdict {
    /// The verdict as the JSON and CSV write it.
    pub fn key(self) -> &'static str {
        match self {
            Self::Serialized => "serialized",
            Self::FreeHere => "free_here",
            Self::Confounded => "confounded",
            Self::NotDivergent => "not_divergent",
            Self::NotMeasured => "not_measured",
            Self::CountOnly => "count_only",
        }
    }

    /// What the verdict means, in a sentence, for the report's legend and the app's tooltip.
    pub fn meaning(self) -> &'static str {
        match self {
            Self::Serialized => {
                "the paths run one after the other here: making the branch's subgroups agree \
                 saves the time shown"
            }
            Self::FreeHere => {
                "divergent, but the saving is within noise of zero (on a coarse timer, within \
                 a few of its steps): the driver predicated or merged the paths, or the side \
                 the first lane skips holds little work, or the run was too noisy to tell which \
                 (the reason says); removing this divergence gains nothing measurable on this \
                 adapter"
            }
            Self::Confounded => {
                "the variant changed more than the branch (other work moved, or it ran \
                 slower): its number is not a clean saving"
            }
            Self::NotDivergent => "divergent in under 1% of evaluations: not measured",
            Self::NotMeasured => "divergent, but not measured (see the reason)",
            Self::CountOnly => {
                "a loop: the share of its lane slots idle while other lanes ran more trips, \
                 counted, not measured"
            }
        }
    }
}

/// A time and its 95% interval: the kernel's time above the floor, which lane slots are
/// priced from, or a prediction priced from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub ns: f64,
    pub interval: Option<[f64; 2]>,
}

/// One branch's cost, in the profile document (schema 3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BranchCost {
    /// The verdict.
    pub verdict: CostVerdict,
    /// The median time saved per dispatch when the branch's subgroups agree (placebo minus
    /// uniform variant, paired by round, over every placement's rounds); `None` where no
    /// variant ran.
    pub saved_ns: Option<f64>,
    /// The saving as a share of the kernel's time: the median over rounds of each round's
    /// saving over its placebo's time (the kernel with the probe's instructions).
    pub saved_fraction: Option<f64>,
    /// The 95% bootstrap interval of `saved_ns`: with several buffer placements, from the
    /// lowest placement's low to the highest's high.
    pub interval_ns: Option<[f64; 2]>,
    /// Each buffer placement's median saving (`--cost-placements`): the kernel's buffers and
    /// textures made again, filled alike, and the pair timed on each; `None` for one placement
    /// and in documents from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_saved_ns: Option<Vec<f64>>,
    /// The cost model's saving from the counts: the idle lane slots on the branch's lines,
    /// priced at the kernel's average time per lane slot of a line, from its time above an
    /// empty dispatch's (`timing.floor_ns`) (for a loop: its idle trip slots).
    pub predicted_ns: Option<f64>,
    /// The 95% interval of `predicted_ns`, from the interval of the kernel's time above the
    /// floor (`timing.above_floor_interval_ns`) (schema 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_interval_ns: Option<[f64; 2]>,
    /// The median time of the variant with each lane deciding for itself (the placebo), over
    /// every placement's rounds: the kernel run through the variant's code. Against
    /// `timing.kernel_ns` it is what that code costs by itself; where it runs far slower
    /// ([`crate::profile::cost::MAX_CONTROL_OVERHEAD`]) the reason says the saving is in that
    /// code's time, and gives it in the kernel's. `None` where no variant ran, and in documents
    /// from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placebo_ns: Option<f64>,
    /// Timed rounds of each variant, on each placement.
    pub variant_reps: usize,
    /// The variant's change in the work outside the branch against the original (the nearer
    /// of its two counted runs, where it was counted again): the larger of Σ|Δ lanes| / Σ lanes
    /// and Σ|Δ executions| / Σ executions over those lines; above 1% the verdict is
    /// `confounded`.
    pub outside_change: Option<f64>,
    /// A second counted run of the kernel itself, from the same fills, against the first,
    /// over the lines `outside_change` compares: above 0 where the kernel's counts vary between
    /// runs (a spin, the order of atomics), and then `outside_change` is no sign of the
    /// branch alone. `None` where no variant was counted, and in documents from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat_change: Option<f64>,
    /// Why the verdict, in words.
    pub reason: String,
}

impl BranchCost {
    /// The cost in a few words, for a table cell: `serialized: saves 4.2 ms (78%)`, or
    /// `free_here: saves nothing (variant 287 ns slower)`.
    pub fn short(&self) -> String {
        match (self.saved_ns, self.saved_fraction) {
            // Short enough for the app's column; the share and the interval are on hover.
            (Some(saved), _) if saved < 0.0 => format!(
                "{}: saves nothing (variant {} slower)",
                self.verdict.key(),
                format_ns(-saved)
            ),
            (Some(saved), Some(share)) => {
                format!("{}: {}", self.verdict.key(), saving_words(saved, share, 0))
            }
            _ => self.verdict.key().to_owned(),
        }
    }

    /// Every figure and the reasons, one per line, for a tooltip.
    pub fn details(&self) -> Vec<String> {
        let mut out = vec![self.verdict.meaning().to_owned()];
        let placements = self.placement_saved_ns.as_deref().unwrap_or_default();
        if let (Some(saved), Some([low, high])) = (self.saved_ns, self.interval_ns) {
            let share = self.saved_fraction.unwrap_or(f64::NAN);
            let each = match placements.len() {
                0 | 1 => String::new(),
                n => format!(" on each of {n} buffer placements"),
            };
            out.push(format!(
                "{} per dispatch; the saving's 95% interval {} to {}, over {} timed rounds{each}",
                saving_words(saved, share, 1),
                format_ns(low),
                format_ns(high),
                self.variant_reps
            ));
        }
        if !placements.is_empty() {
            let each: Vec<String> = placements.iter().map(|&ns| format_ns(ns)).collect();
            out.push(format!(
                "each placement's saving: {} (the interval spans them all)",
                each.join(", ")
            ));
        }
        if let Some(p) = self.predicted_text() {
            out.push(format!("the cost model predicts {p} from the counts"));
        }
        out.push(self.reason.clone());
        out
    }

    /// The prediction in words: `4.2 µs (3.1 µs to 5 µs)` with its interval, or for a negative
    /// one why it is negative.
    pub fn predicted_text(&self) -> Option<String> {
        let p = self.predicted_ns?;
        Some(if p < 0.0 {
            format!(
                "{} (the variant ran more subgroup executions inside the branch: lanes that \
                 skipped it entered, and what is inside ran longer or split more)",
                format_ns(p)
            )
        } else if let Some([low, high]) = self.predicted_interval_ns {
            format!(
                "{} ({} to {})",
                format_ns(p),
                format_ns(low),
                format_ns(high)
            )
        } else {
            format_ns(p)
        })
    }

    /// A branch that has no measurement, with the cost model's prediction where there is one,
    /// for `reason`.
    pub fn unmeasured(verdict: CostVerdict, predicted: Option<Estimate>, reason: String) -> Self {
        Self {
            verdict,
            saved_ns: None,
            saved_fraction: None,
            interval_ns: None,
            predicted_ns: predicted.map(|p| p.ns),
            predicted_interval_ns: predicted.and_then(|p| p.interval),
            variant_reps: 0,
            placement_saved_ns: None,
            placebo_ns: None,
            outside_change: None,
            repeat_change: None,
            reason,
        }
    }
}

/// A median saving and its share of the kernel in words: `saves 4.2 µs (12%)`, or for a
/// negative one (the variant ran slower: noise, or a confounded variant) `saves nothing: the
/// variant ran 287 ns (3%) slower` rather than a negative saving.
pub fn saving_words(saved_ns: f64, share: f64, decimals: usize) -> String {
    let percent = share.abs() * 100.0;
    // A time that is there never reads as 0% of the kernel.
    let step = 10f64.powi(-i32::try_from(decimals).unwrap_or(0));
    let percent = if percent > 0.0 && percent < step / 2.0 {
        format!("<{step}%")
    } else {
        format!("{percent:.decimals$}%")
    };
    if saved_ns < 0.0 {
        format!(
            "saves nothing: the variant ran {} ({percent}) slower",
            format_ns(-saved_ns)
        )
    } else {
        format!("saves {} ({percent})", format_ns(saved_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A negative prediction says why; a positive one is the figure alone.
    #[test]
    fn a_negative_prediction_says_why() {
        let predicted = |ns, interval| Some(Estimate { ns, interval });
        let cost =
            |ns| BranchCost::unmeasured(CostVerdict::FreeHere, predicted(ns, None), String::new());
        assert_eq!(cost(4200.0).predicted_text().as_deref(), Some("4.2 µs"));
        let with_interval = BranchCost::unmeasured(
            CostVerdict::FreeHere,
            predicted(4200.0, Some([3100.0, 5000.0])),
            String::new(),
        );
        assert_eq!(
            with_interval.predicted_text().as_deref(),
            Some("4.2 µs (3.1 µs to 5 µs)")
        );
        let negative = cost(-7.2).predicted_text().unwrap();
        assert!(
            negative.starts_with("-7.2 ns (the variant ran more"),
            "{negative}"
        );
        assert!(
            cost(-7.2)
                .details()
                .iter()
                .any(|d| d.contains("split more"))
        );
    }

    /// A negative median is never printed as a negative saving.
    #[test]
    fn a_slower_variant_saves_nothing_in_words() {
        let measured = |saved: f64| BranchCost {
            saved_ns: Some(saved),
            saved_fraction: Some(saved / 10_000.0),
            interval_ns: Some([saved - 500.0, saved + 500.0]),
            variant_reps: 15,
            ..BranchCost::unmeasured(CostVerdict::FreeHere, None, String::new())
        };
        assert_eq!(measured(2500.0).short(), "free_here: saves 2.5 µs (25%)");
        // A saving too small to round to 1% of the kernel is not 0% of it.
        assert_eq!(measured(20.0).short(), "free_here: saves 20 ns (<1%)");
        assert_eq!(saving_words(4.0, 0.0004, 1), "saves 4 ns (<0.1%)");
        assert_eq!(saving_words(0.0, 0.0, 1), "saves 0 ns (0.0%)");
        let slower = measured(-287.0);
        assert_eq!(
            slower.short(),
            "free_here: saves nothing (variant 287 ns slower)"
        );
        assert_eq!(
            slower.details()[1],
            "saves nothing: the variant ran 287 ns (2.9%) slower per dispatch; the saving's 95% \
             interval -787 ns to 213 ns, over 15 timed rounds"
        );
        // Timed on several placements, the tooltip says so and gives each one's saving.
        let placed = BranchCost {
            placement_saved_ns: Some(vec![2400.0, 2600.0, 2500.0]),
            ..measured(2500.0)
        };
        let details = placed.details();
        assert!(
            details[1].ends_with("over 15 timed rounds on each of 3 buffer placements"),
            "{details:?}"
        );
        assert_eq!(
            details[2],
            "each placement's saving: 2.4 µs, 2.6 µs, 2.5 µs (the interval spans them all)"
        );
    }
}
