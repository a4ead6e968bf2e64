//! One function's uniformity graph as the walk leaves it: the spec's special nodes, the
//! requirements on them, the calls to user functions and the places the annotation reads.
//! `function.rs` builds it.

use naga::{Function, Handle, Span};

use super::cause::Cause;
use super::graph::{Graph, NodeId};
use super::rule::{Rule, Severity};

/// An edge from `RequiredToBeUniform.S`: control flow at a call, or an argument's value.
#[derive(Clone, Debug)]
pub(crate) struct Requirement {
    pub severity: Severity,
    pub rule: Rule,
    pub node: NodeId,
    /// Where to point: the call, or the argument.
    pub site: Span,
    /// The call (or builtin) the requirement belongs to.
    pub call: Span,
    /// "`workgroupBarrier()`", "the call to `helper`", "the `delta` argument of ...".
    pub what: String,
    /// The builtins behind it (itself, for a builtin call).
    pub causes: Vec<Cause>,
    /// A value requirement (an argument), not a control-flow one.
    pub argument: bool,
}

/// A call to a user function, kept for the top-down annotation.
#[derive(Clone, Debug)]
pub(crate) struct CallSite {
    pub callee: Handle<Function>,
    pub span: Span,
    pub cf: NodeId,
    pub args: Vec<NodeId>,
    pub contents: Vec<Option<NodeId>>,
}

/// A place in the source and the control flow there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Point {
    pub span: Span,
    pub cf: NodeId,
}

/// The spec's special nodes of a function.
#[derive(Clone, Debug)]
pub(crate) struct Specials {
    pub required: [NodeId; 3],
    pub may_be_non_uniform: NodeId,
    pub cf_start: NodeId,
    pub params: Vec<NodeId>,
    /// `param_i_contents`, for pointers into the function address space.
    pub param_contents: Vec<Option<NodeId>>,
    pub value_return: Option<NodeId>,
    /// `Value_return_i_contents`.
    pub return_contents: Vec<Option<NodeId>>,
}

/// One function's graph and what the walk recorded.
#[derive(Clone, Debug)]
pub(crate) struct FunctionGraph {
    pub name: String,
    pub graph: Graph,
    pub special: Specials,
    /// What the walk found besides the graph.
    pub found: Findings,
    /// `let` values by name: (name, span, node).
    pub named: Vec<(String, Span, NodeId)>,
}

/// What a function's walk finds besides its graph: the builder fills it, and the function's
/// graph keeps it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Findings {
    /// Every edge from `RequiredToBeUniform.S`, in the order met.
    pub requirements: Vec<Requirement>,
    /// Every call to a user function.
    pub calls: Vec<CallSite>,
    /// The places the annotation gives a verdict, with the control flow there.
    pub points: Vec<Point>,
    /// Statically unreachable statements: the spec does not analyze them.
    pub unreachable: Vec<Span>,
}
