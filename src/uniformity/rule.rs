//! The triggering rules divlab evaluates and the severities a diagnostic filter gives them:
//! the keys every output (text, JSON, SARIF) names them by.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A triggering rule divlab evaluates. Its id (`Rule::id`) is the same in every output.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
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

    /// What the rule protects and how to fix a finding: SARIF's `help` text, which GitHub code
    /// scanning shows beside each alert.
    pub fn help(self) -> &'static str {
        match self {
            Rule::Barrier => {
                "A barrier (workgroupBarrier, storageBarrier, textureBarrier) or \
                 workgroupUniformLoad waits for every invocation of the workgroup, so WGSL \
                 requires every invocation to reach it together: the call must be in uniform \
                 control flow, or the shader is rejected (Chrome's Tint rejects it; naga accepts \
                 it, so it may still run under wgpu). No diagnostic filter changes this rule. \
                 Fix: move the call out of the branch or loop whose condition depends on a \
                 non-uniform value (an invocation id, a read_write storage value, a subgroup \
                 result), or make the condition uniform, for instance by reading it with \
                 workgroupUniformLoad. The related locations give the reason chain, from the \
                 call back to the non-uniform source."
            }
            Rule::SubgroupUniformity => {
                "Subgroup and quad builtins act among the invocations that execute them \
                 together, so WGSL requires subgroup-uniform control flow for them, and the \
                 delta and mask arguments of the shuffles must be subgroup-uniform (the \
                 subgroup_uniformity diagnostic, an error by default). Fix: call the builtin \
                 before the non-uniform branch, or make the condition subgroup-uniform. To \
                 accept the risk, lower the rule with `diagnostic(warning, subgroup_uniformity);` \
                 or `@diagnostic(off, subgroup_uniformity)` on the function. The related \
                 locations give the reason chain."
            }
            Rule::DerivativeUniformity => {
                "Derivatives (dpdx, fwidth, ...) and implicit-level texture sampling \
                 (textureSample, ...) read neighbouring fragment invocations, so WGSL requires \
                 uniform control flow for them (the derivative_uniformity diagnostic, an error \
                 by default). Fix: sample before the branch, pass an explicit level or gradient \
                 (textureSampleLevel, textureSampleGrad), or lower the rule with \
                 `diagnostic(warning, derivative_uniformity);`. The related locations give the \
                 reason chain."
            }
        }
    }
}

/// A diagnostic severity, in the spec's order (error first).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
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
