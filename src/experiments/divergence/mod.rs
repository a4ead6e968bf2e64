//! `divergence.*`: what k divergent paths cost (seed 004's T(k) = s*k), against a
//! subgroup-uniform control, a predicated variant, occupancy levels and unbalanced paths.

pub mod analysis;
mod calibrate;
mod check;
mod compile;
mod groups;
pub mod kernels;
mod phases;
mod plan;
mod run;
mod schedule;
pub mod width;

pub use kernels::Form;
pub use plan::Plan;

use crate::Result;
use crate::experiments::{Experiment, RunContext};
use crate::report::{ExperimentInfo, ExperimentResult, Family, Figure, Fit};
use crate::shaders;
use crate::shaders::divergence::Selection;

/// What every form of the study declares; each form sets its own id and title.
const INFO: ExperimentInfo = ExperimentInfo {
    id: "divergence",
    family: Family::Divergence,
    title: "Divergence cost",
    rule: "Divergent paths serialize linearly, T(k) ~ s*k, with no super-linear penalty; \
           efficiency falls as SG/k; the penalty is independent of occupancy; predication \
           removes it",
    source: "“Characterizing Warp Divergence from Pascal to Blackwell”; “Independent Thread Scheduling”; “Per-Lane Program Counters and Independent Thread Scheduling”",
    shaders: &[&shaders::DIVERGENCE],
    figures: FIGURES,
    fit: Some(Fit {
        x_label: "k",
        slope: "slope_s_ns",
        intercept: "intercept_ns",
        r2: Some("r2"),
        x_max: Some("pipeline_subgroup_size"),
    }),
};

/// The study's key figures.
const FIGURES: &[Figure] = &[
    Figure::new("slope_s_ns", "s (ns/path)", 0, None),
    Figure::new("r2", "R²", 4, Some("linear")),
    Figure::new("serialization_at_sg", "F(SG)", 2, Some("simt_model")),
    Figure::new("serialization_at_sg_raw", "F(SG) raw", 2, None),
    Figure::new("serialization_at_sg_floor", "F(SG) floor only", 2, None),
    Figure::new("fixed_cost_uniform_ns", "fixed cost, uniform (ns)", 0, None),
    Figure::new("dispatch_floor_ns", "floor (ns)", 0, None),
    Figure::new(
        "predicated_ratio_at_sg",
        "T_pred(SG)/T_pred(1)",
        3,
        Some("predication"),
    ),
    Figure::new("baseline_gflops", "baseline GFLOP/s", 0, None),
    Figure::new("occupancy_spread", "occupancy spread", 3, Some("occupancy")),
    Figure::new("cv_median", "CV (median)", 4, None).noise(),
];

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
    fn info(&self) -> ExperimentInfo {
        let (id, title) = match self.form {
            Form::IfChain => ("divergence.if_chain", "Divergence cost: if / else-if chain"),
            Form::Switch => ("divergence.switch", "Divergence cost: switch with k cases"),
            Form::Loop => (
                "divergence.loop",
                "Divergence cost: loop trip counts that differ per lane",
            ),
            Form::NestedIf => ("divergence.nested_if", "Divergence cost: nested binary ifs"),
            Form::Predicated => ("divergence.predicated", "Divergence cost: predicated"),
        };
        ExperimentInfo { id, title, ..INFO }
    }

    fn run(&self, ctx: RunContext<'_>) -> Result<ExperimentResult> {
        let (lab, config, progress) = ctx.parts();
        run::run(self, lab, config, progress)
    }

    /// The generated kernel of this form, as the result says it ran (paths compiled and how
    /// lanes chose a path), then the predicated control; before a run, as a full run makes it.
    fn sources(&self, result: Option<&ExperimentResult>) -> Vec<crate::experiments::KernelSource> {
        let param = |key: &str| result.and_then(|r| r.params.get(key));
        let paths = param("paths_compiled")
            .and_then(serde_json::Value::as_u64)
            .map_or(self.form.paths_compiled(32), |p| p as u32);
        let selection = match param("selection").and_then(serde_json::Value::as_str) {
            Some("block") => Selection::Block,
            _ => Selection::Subgroup,
        };
        [self.form, Form::Predicated]
            .into_iter()
            .map(|form| {
                let paths = if form == self.form { paths } else { 1 };
                crate::experiments::KernelSource {
                    name: format!(
                        "generated {} kernel ({} path{}, selection by {:?})",
                        form.name(),
                        paths,
                        if paths == 1 { "" } else { "s" },
                        selection
                    )
                    .to_lowercase(),
                    source: std::borrow::Cow::Owned(form.source(paths, selection)),
                }
            })
            .collect()
    }
}
