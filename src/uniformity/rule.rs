//! The triggering rules divlab evaluates and the severities a diagnostic filter gives them:
//! the keys every output (text, JSON, SARIF) names them by.

use serde::{Deserialize, Serialize};

/// A triggering rule divlab evaluates. Its id (`Rule::id`) is the same in every output.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// A barrier or `workgroupUniformLoad` outside uniform control flow. The spec's rule for it
    /// has no name, so no filter can change it: always an error. Its id is `uniformity`.
    #[serde(rename = "uniformity")]
    Barrier,
    /// `subgroup_uniformity`: subgroup and quad builtins, shuffle `delta`/`mask` arguments.
    SubgroupUniformity,
    /// `derivative_uniformity`: derivatives and implicit-level texture sampling.
    DerivativeUniformity,
}

impl Rule {
    /// Every rule, in the order of its id.
    pub const ALL: [Rule; 3] = [
        Rule::Barrier,
        Rule::SubgroupUniformity,
        Rule::DerivativeUniformity,
    ];

    /// The stable id: `uniformity`, `subgroup_uniformity` or `derivative_uniformity` (the last
    /// two are the spec's filterable rule names).
    pub fn id(self) -> &'static str {
        match self {
            Rule::Barrier => "uniformity",
            Rule::SubgroupUniformity => "subgroup_uniformity",
            Rule::DerivativeUniformity => "derivative_uniformity",
        }
    }

    /// One sentence on what the rule checks.
    pub fn description(self) -> &'static str {
        match self {
            Rule::Barrier => {
                "Barriers and workgroupUniformLoad must be called in uniform control flow."
            }
            Rule::SubgroupUniformity => {
                "Subgroup and quad builtins must be called in subgroup-uniform control flow, and \
                 shuffle delta and mask arguments must be subgroup-uniform."
            }
            Rule::DerivativeUniformity => {
                "Derivatives and implicit-level texture sampling must be called in uniform \
                 control flow."
            }
        }
    }
}

/// A diagnostic severity, in the spec's order (error first).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Rejects the shader.
    Error,
    /// Reported; the shader is accepted.
    Warning,
    /// Reported as information; the shader is accepted.
    Info,
}

impl Severity {
    /// Error, warning, info: the order in which the spec visits the `RequiredToBeUniform.S` nodes.
    pub const ALL: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

    /// The severity's name in WGSL.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}
