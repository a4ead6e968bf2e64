//! The second phase of the spec's per-function analysis: explore the graph from the
//! `RequiredToBeUniform.S` nodes (error, then warning, then info), trigger a uniformity failure
//! where `MayBeNonUniform` is reachable, and otherwise compute the function's tags for its
//! callers: call site tag, function tag, parameter, parameter-return and pointer-parameter tags.
//!
//! One refinement of the spec, which does not change whether a shader is accepted: a tag keeps
//! the builtins that actually reach `CF_start` (or the parameter) as its causes, where the spec
//! keeps every triggering rule of the severity (its potential-trigger-set). A caller's diagnostic
//! therefore names the rule that matters, and divlab reports every failing call site, where
//! the spec triggers one diagnostic per function and severity.

use super::function::{Cause, FunctionGraph};
use super::graph::{Kind, NodeId};
use super::source::Severity;

/// A `CallSiteRequiredToBeUniform.S` or `Parameter(Contents)RequiredToBeUniform.S` tag.
#[derive(Clone, Debug)]
pub(crate) struct Tag {
    pub severity: Severity,
    pub causes: Vec<Cause>,
}

/// Pointer-parameter tags of a function-address-space pointer parameter.
#[derive(Clone, Debug, Default)]
pub(crate) struct PointerTags {
    /// `PointerParameterMayBeNonUniform`, with the reason.
    pub may_be_non_uniform: Option<String>,
    /// Parameters whose values the pointee's final value depends on.
    pub from_values: Vec<usize>,
    /// Pointer parameters whose pointees' initial values it depends on.
    pub from_contents: Vec<usize>,
}

/// Tags of one parameter.
#[derive(Clone, Debug, Default)]
pub(crate) struct ParamTags {
    pub name: String,
    /// `ParameterRequiredToBeUniform.S`.
    pub required: Option<Tag>,
    /// `ParameterContentsRequiredToBeUniform.S`.
    pub contents_required: Option<Tag>,
    /// `ParameterReturnContentsRequiredToBeUniform` through the parameter's value.
    pub return_value: bool,
    /// The same through the value it points to.
    pub return_contents: bool,
    /// For a pointer into the function address space.
    pub pointer: Option<PointerTags>,
}

/// Everything a caller needs to know about a function.
#[derive(Clone, Debug, Default)]
pub(crate) struct FunctionTags {
    /// `CallSiteRequiredToBeUniform.S`, or `None` for `CallSiteNoRestriction`.
    pub call_site: Option<Tag>,
    /// `ReturnValueMayBeNonUniform`, with the reason; `None` for `NoRestriction`.
    pub return_non_uniform: Option<String>,
    pub params: Vec<ParamTags>,
}

/// A uniformity failure inside one function: a requirement from which `MayBeNonUniform` is
/// reachable, and the path that shows it.
#[derive(Clone, Debug)]
pub(crate) struct Failure {
    pub requirement: usize,
    pub path: Vec<NodeId>,
}

/// Computes a function's tags and its failures.
pub(crate) fn compute(fg: &FunctionGraph, param_names: &[String]) -> (FunctionTags, Vec<Failure>) {
    let g = &fg.graph;
    let sp = &fg.special;
    let mnu = sp.may_be_non_uniform;
    let mut tags = FunctionTags {
        params: param_names
            .iter()
            .enumerate()
            .map(|(i, name)| ParamTags {
                name: name.clone(),
                pointer: sp.param_contents[i].map(|_| PointerTags::default()),
                ..ParamTags::default()
            })
            .collect(),
        ..FunctionTags::default()
    };
    let mut failures = Vec::new();
    // One search toward `MayBeNonUniform` gives every failing requirement its path.
    let to_mnu = g.toward(&[mnu]);
    let reaches_start = g.reaching(&[sp.cf_start]);
    let mut visited = vec![false; g.nodes.len()];
    let special = |n: NodeId| {
        n == mnu
            || n == sp.cf_start
            || sp.params.contains(&n)
            || sp.param_contents.contains(&Some(n))
    };
    for (si, severity) in Severity::ALL.into_iter().enumerate() {
        // R.S: unvisited nodes reachable from RequiredToBeUniform.S.
        let reach = reachable_unvisited(fg, sp.required[si], &visited);
        for (n, r) in reach.iter().enumerate() {
            if *r && !special(n) {
                visited[n] = true;
            }
        }
        let of_severity = || {
            fg.found
                .requirements
                .iter()
                .enumerate()
                .filter(move |(_, r)| r.severity == severity)
        };
        if reach[mnu] {
            for (i, r) in of_severity() {
                if let Some(path) = to_mnu.path(g, r.node) {
                    failures.push(Failure {
                        requirement: i,
                        path,
                    });
                }
            }
            continue;
        }
        let causes_reaching = |target: &[bool]| -> Vec<Cause> {
            of_severity()
                .filter(|(_, r)| target[r.node])
                .flat_map(|(_, r)| r.causes.clone())
                .collect()
        };
        if reach[sp.cf_start] && tags.call_site.is_none() {
            tags.call_site = Some(Tag {
                severity,
                causes: causes_reaching(&reaches_start),
            });
        }
        for (i, &p) in sp.params.iter().enumerate() {
            if reach[p] && tags.params[i].required.is_none() {
                let target = g.reaching(&[p]);
                tags.params[i].required = Some(Tag {
                    severity,
                    causes: causes_reaching(&target),
                });
            }
            if let Some(c) = sp.param_contents[i]
                && reach[c]
                && tags.params[i].contents_required.is_none()
            {
                let target = g.reaching(&[c]);
                tags.params[i].contents_required = Some(Tag {
                    severity,
                    causes: causes_reaching(&target),
                });
            }
        }
    }
    if let Some(vr) = sp.value_return {
        let reach = g.reachable(&[vr]);
        if reach[mnu] {
            tags.return_non_uniform = Some(reason_to_source(fg, vr));
        }
        for (i, &p) in sp.params.iter().enumerate() {
            tags.params[i].return_value = reach[p];
            tags.params[i].return_contents = sp.param_contents[i].is_some_and(|c| reach[c]);
        }
    }
    for (i, rc) in sp.return_contents.iter().enumerate() {
        let Some(rc) = *rc else { continue };
        let reach = g.reachable(&[rc]);
        let ptr = tags.params[i]
            .pointer
            .get_or_insert_with(PointerTags::default);
        if reach[mnu] {
            ptr.may_be_non_uniform = Some(reason_to_source(fg, rc));
        }
        for (j, &p) in sp.params.iter().enumerate() {
            if reach[p] {
                ptr.from_values.push(j);
            }
            if sp.param_contents[j].is_some_and(|c| reach[c]) {
                ptr.from_contents.push(j);
            }
        }
    }
    (tags, failures)
}

/// Nodes reachable from `from` without entering visited interior nodes.
fn reachable_unvisited(fg: &FunctionGraph, from: NodeId, visited: &[bool]) -> Vec<bool> {
    let g = &fg.graph;
    let mut seen = vec![false; g.nodes.len()];
    let mut stack = vec![from];
    seen[from] = true;
    while let Some(n) = stack.pop() {
        for m in g.successors(n) {
            if !seen[m] && !visited[m] {
                seen[m] = true;
                stack.push(m);
            }
        }
    }
    seen
}

/// "it depends on `x`": the source at the end of the shortest path to `MayBeNonUniform`.
fn reason_to_source(fg: &FunctionGraph, from: NodeId) -> String {
    let mnu = fg.special.may_be_non_uniform;
    let source = fg
        .graph
        .path(from, |n| n == mnu)
        .and_then(|p| {
            p.iter()
                .rev()
                .find(|&&n| fg.graph.nodes[n].kind == Kind::Source)
                .copied()
        })
        .map(|n| fg.graph.nodes[n].text.clone());
    match source {
        Some(text) => format!("which depends on {text}"),
        None => "which may be non-uniform".to_owned(),
    }
}
