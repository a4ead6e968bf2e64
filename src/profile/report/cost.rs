//! What a branch's divergence costs on the adapter that ran it (`divlab profile --cost`): the
//! measured saving of a counterfactual kernel in which the branch's subgroups do not diverge,
//! its interval, the cost model's prediction from the counts, and a verdict.

use serde::{Deserialize, Serialize};

use crate::report::units::format_ns;

/// The verdict on one branch's cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CostVerdict {
    /// The saving's 95% interval lies above zero: the device runs the branch's paths one after
    /// the other, and removing the divergence would save that time.
    Serialized,
    /// Divergent in at least 1% of evaluations, but the saving is within noise of zero: the
    /// driver predicated or merged the paths, or the side the first lane skips holds little or
    /// no work (the prediction says which), so the divergence costs nothing here.
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
                "divergent, but the saving is within noise of zero: the driver predicated or \
                 merged the paths, or the side the first lane skips holds little work (the \
                 reason says which); removing this divergence gains nothing on this adapter"
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

/// One branch's cost, in the profile document (schema 3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BranchCost {
    /// The verdict.
    pub verdict: CostVerdict,
    /// The median time saved per dispatch when the branch's subgroups agree (placebo minus
    /// uniform variant, paired by round); `None` where no variant ran.
    pub saved_ns: Option<f64>,
    /// The saving as a share of the kernel's time: the median over rounds of each round's
    /// saving over its placebo's time (the kernel with the probe's instructions).
    pub saved_fraction: Option<f64>,
    /// The 95% bootstrap interval of `saved_ns`.
    pub interval_ns: Option<[f64; 2]>,
    /// The cost model's saving from the counts: the idle lane slots on the branch's lines,
    /// priced at the kernel's average time per lane slot of a line (for a loop: its idle
    /// trip slots).
    pub predicted_ns: Option<f64>,
    /// Timed rounds of each variant.
    pub variant_reps: usize,
    /// The variant's change in the work outside the branch against the original: the larger
    /// of Σ|Δ lanes| / Σ lanes and Σ|Δ executions| / Σ executions over those lines; above 1%
    /// the verdict is `confounded`.
    pub outside_change: Option<f64>,
    /// Why the verdict, in words.
    pub reason: String,
}

impl BranchCost {
    /// The cost in a few words, for a table cell: `serialized: saves 4.2 ms (78%)`.
    pub fn short(&self) -> String {
        match (self.saved_ns, self.saved_fraction) {
            (Some(saved), Some(share)) => format!(
                "{}: saves {} ({:.0}%)",
                self.verdict.key(),
                format_ns(saved),
                share * 100.0
            ),
            _ => self.verdict.key().to_owned(),
        }
    }

    /// Every figure and the reasons, one per line, for a tooltip.
    pub fn details(&self) -> Vec<String> {
        let mut out = vec![self.verdict.meaning().to_owned()];
        if let (Some(saved), Some([low, high])) = (self.saved_ns, self.interval_ns) {
            out.push(format!(
                "saves {} per dispatch (95% interval {} to {}) over {} timed rounds",
                format_ns(saved),
                format_ns(low),
                format_ns(high),
                self.variant_reps
            ));
        }
        if let Some(p) = self.predicted_text() {
            out.push(format!("the cost model predicts {p} from the counts"));
        }
        out.push(self.reason.clone());
        out
    }

    /// The prediction in words: `4.2 µs`, or for a negative one why it is negative.
    pub fn predicted_text(&self) -> Option<String> {
        let p = self.predicted_ns?;
        Some(if p < 0.0 {
            format!(
                "{} (the variant ran more subgroup executions inside the branch: lanes that \
                 skipped it entered, and what is inside ran longer or split more)",
                format_ns(p)
            )
        } else {
            format_ns(p)
        })
    }

    /// A branch that has no measurement, for `reason`.
    pub fn unmeasured(verdict: CostVerdict, predicted_ns: Option<f64>, reason: String) -> Self {
        Self {
            verdict,
            saved_ns: None,
            saved_fraction: None,
            interval_ns: None,
            predicted_ns,
            variant_reps: 0,
            outside_change: None,
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A negative prediction says why; a positive one is the figure alone.
    #[test]
    fn a_negative_prediction_says_why() {
        let cost = |p: f64| BranchCost::unmeasured(CostVerdict::FreeHere, Some(p), String::new());
        assert_eq!(cost(4200.0).predicted_text().as_deref(), Some("4.2 µs"));
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
}
