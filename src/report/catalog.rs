//! What each experiment declares for the readers of its results: its id, title and rule, the
//! kernels it runs, its key figures (with the verdict each one decides) and the fitted line of
//! its charts. The experiments own the declarations; the summary table, `compare`, the HTML
//! report and the app read them through a [`Catalog`] that the caller hands in, so that this
//! module, like the rest of `report/`, does not depend on the experiments.

use crate::report::{ExperimentResult, Rule};
use crate::shaders::ShaderFile;

/// One experiment's declaration.
#[derive(Clone, Copy, Debug)]
pub struct ExperimentInfo {
    /// Stable id, e.g. `divergence.switch`: its [`Family`]'s prefix, a dot, and a name.
    pub id: &'static str,
    /// The family it belongs to, by which tables group and select experiments.
    pub family: Family,
    /// Human title.
    pub title: &'static str,
    /// The rule it checks, in one sentence.
    pub rule: &'static str,
    /// Where the rule comes from: a document's title, a WGSL section.
    pub source: &'static str,
    /// The WGSL files it runs (generated kernels name their template).
    pub shaders: &'static [&'static ShaderFile],
    /// Its key figures, in display order.
    pub figures: &'static [Figure],
    /// The straight line fitted to its timed series, where it fits one.
    pub fit: Option<Fit>,
}

/// The family of experiments an id belongs to: the part of the id before its dot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `subgroup.*`: the subgroup probe.
    Subgroup,
    /// `divergence.*`: the forms of the divergence study.
    Divergence,
    /// `simt.*`: SIMT efficiency.
    Simt,
    /// `convergence.*`: the structured-reconvergence scenarios.
    Convergence,
    /// `subgroup_ops.*`: the subgroup-operation catalog.
    SubgroupOps,
    /// `scheduling.*`: the scheduling probes.
    Scheduling,
    /// `fuzz.*`: the reconvergence fuzzer.
    Fuzz,
}

impl Family {
    /// The prefix of its ids, without the dot.
    pub const fn prefix(self) -> &'static str {
        match self {
            Family::Subgroup => "subgroup",
            Family::Divergence => "divergence",
            Family::Simt => "simt",
            Family::Convergence => "convergence",
            Family::SubgroupOps => "subgroup_ops",
            Family::Scheduling => "scheduling",
            Family::Fuzz => "fuzz",
        }
    }
}

/// A key figure: a metric with its label and precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Figure {
    /// The metric's stable key. Where the result also has `<key>_ci_low` and `<key>_ci_high`,
    /// readers show the 95% interval beside it.
    pub key: &'static str,
    /// A short label for tables, e.g. `F(SG)`.
    pub label: &'static str,
    /// Decimals in tables.
    pub decimals: usize,
    /// The key of the verdict decided on this figure, if any.
    pub decides: Option<&'static str>,
    /// The figure is the measurement's own spread (a CV), not a property of the device: the
    /// tables show it, `--threshold` does not gate it.
    pub noise: bool,
}

impl Figure {
    /// A figure of the device, which `--threshold` gates.
    pub const fn new(
        key: &'static str,
        label: &'static str,
        decimals: usize,
        decides: Option<&'static str>,
    ) -> Self {
        Self {
            key,
            label,
            decimals,
            decides,
            noise: false,
        }
    }

    /// The same figure as the measurement's own spread, which `--threshold` does not gate.
    pub const fn noise(self) -> Self {
        Self {
            noise: true,
            ..self
        }
    }
}

/// A fitted straight line `y = intercept + slope * x` over a chart's series, by metric keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fit {
    /// The series' x label it applies to, e.g. `k`.
    pub x_label: &'static str,
    /// The metric holding the slope.
    pub slope: &'static str,
    /// The metric holding the intercept.
    pub intercept: &'static str,
    /// The metric holding R², if any.
    pub r2: Option<&'static str>,
    /// The metric holding the largest x the line was fitted over; the line stops there.
    pub x_max: Option<&'static str>,
}

impl ExperimentInfo {
    /// The rule as results record it.
    pub fn rule(&self) -> Rule {
        Rule {
            text: self.rule.to_owned(),
            source: self.source.to_owned(),
        }
    }

    /// The id without its family's prefix, e.g. `switch` for `divergence.switch`.
    pub fn name(&self) -> &'static str {
        self.id
            .strip_prefix(self.family.prefix())
            .and_then(|rest| rest.strip_prefix('.'))
            .unwrap_or(self.id)
    }

    /// An empty `ok` result carrying this experiment's id, title and rule.
    pub fn new_result(&self) -> ExperimentResult {
        ExperimentResult::new(self.id, self.title, self.rule())
    }
}

/// Every experiment's declaration, handed to the readers of result documents.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    infos: Vec<ExperimentInfo>,
}

impl Catalog {
    /// A catalog of these declarations.
    pub fn new(infos: Vec<ExperimentInfo>) -> Self {
        Self { infos }
    }

    /// The declaration of experiment `id`, if this build knows it.
    pub fn get(&self, id: &str) -> Option<&ExperimentInfo> {
        self.infos.iter().find(|i| i.id == id)
    }

    /// Every declaration, in run order.
    pub fn iter(&self) -> impl Iterator<Item = &ExperimentInfo> {
        self.infos.iter()
    }

    /// The family of experiment `id`, if this build knows it.
    pub fn family(&self, id: &str) -> Option<Family> {
        self.get(id).map(|i| i.family)
    }

    /// The key figures of experiment `id`; none for an experiment this build does not know.
    pub fn figures(&self, id: &str) -> &[Figure] {
        self.get(id).map_or(&[], |i| i.figures)
    }
}
