//! `divergence.*`: what k divergent paths cost (seed 004's T(k) = s*k), against a
//! subgroup-uniform control, a predicated variant, occupancy levels and unbalanced paths.

pub mod analysis;
pub mod kernels;
mod plan;
mod run;
pub mod width;

pub use kernels::Form;
pub use plan::Plan;

use crate::Result;
use crate::experiments::{Experiment, Lab, Progress, RunConfig};
use crate::report::{ExperimentResult, Rule};

/// One form of the divergence study.
pub struct Divergence {
    /// The control-flow shape.
    pub form: Form,
}

impl Divergence {
    /// The four forms the study registers.
    pub fn all() -> [Self; 4] {
        [Form::IfChain, Form::Switch, Form::Loop, Form::NestedIf].map(|form| Self { form })
    }
}

impl Experiment for Divergence {
    fn id(&self) -> &'static str {
        match self.form {
            Form::IfChain => "divergence.if_chain",
            Form::Switch => "divergence.switch",
            Form::Loop => "divergence.loop",
            Form::NestedIf => "divergence.nested_if",
            Form::Predicated => "divergence.predicated",
        }
    }

    fn title(&self) -> &'static str {
        match self.form {
            Form::IfChain => "Divergence cost: if / else-if chain",
            Form::Switch => "Divergence cost: switch with k cases",
            Form::Loop => "Divergence cost: loop trip counts that differ per lane",
            Form::NestedIf => "Divergence cost: nested binary ifs",
            Form::Predicated => "Divergence cost: predicated",
        }
    }

    fn rule(&self) -> Rule {
        Rule {
            text: "Divergent paths serialize linearly, T(k) ~ s*k, with no super-linear penalty; \
                   efficiency falls as SG/k; the penalty is independent of occupancy; \
                   predication removes it"
                .to_owned(),
            source:
                "seed 004 (Characterizing Warp Divergence from Pascal to Blackwell); seeds 000, 001"
                    .to_owned(),
        }
    }

    fn run(
        &self,
        lab: &Lab,
        config: &RunConfig,
        progress: Progress<'_>,
    ) -> Result<ExperimentResult> {
        run::run(self, lab, config, progress)
    }
}
