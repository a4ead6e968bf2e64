//! Builds one function's uniformity graph from naga IR: the spec's special nodes, the walk's
//! state (the function-scope variable value analysis), and where `let`s are written. Statements
//! are in `control.rs`, expressions in `expr.rs`, calls in `calls.rs`.
//!
//! naga IR is not WGSL syntax; where they differ:
//! - `for` and `while` arrive desugared as `loop { if c {} else { break; } ... continuing {..} }`,
//!   which is the spec's own desugaring.
//! - `let` has no statement: an `Emit` evaluates expressions where the WGSL text did. A value's
//!   node is made at its `Emit`, with the control flow there.
//! - A `var` with a constant initializer outside a loop is initialized at function entry, not at
//!   its declaration. That is safe: every load links to the control flow at the load, which
//!   reaches the declaration's.
//! - `&&` and `||` arrive as an `if` that stores into a temporary; the spec's rule (the right
//!   operand runs in control flow that depends on the left) is what that `if` gives.
//! - `case 1, 2:` arrives as an empty case that falls through, then the body; the empty case is
//!   skipped, as it is one clause in WGSL.

use naga::{Function, Handle, Span};

use super::behavior::{self, Behaviors};
// Defined in their own files; named here as before.
pub(crate) use super::cause::Cause;
pub(crate) use super::function_graph::{
    CallSite, Findings, FunctionGraph, Point, Requirement, Specials,
};
use super::graph::{Graph, Kind, NodeId};
use super::rule::{Rule, Severity};
use super::source::Source;
use super::tags::FunctionTags;
use super::{Options, Scope};

/// What a walk needs from the module around the function.
pub(crate) struct Context<'a> {
    pub module: &'a naga::Module,
    pub source: &'a Source,
    pub scope: Scope,
    pub options: &'a Options,
    /// Tags of the functions analyzed so far, by arena index, for this scope.
    pub tags: &'a [FunctionTags],
}

/// A `loop` or `switch` being walked: the variable states at its `break`s and `continue`s.
pub(crate) struct Frame {
    pub is_loop: bool,
    pub breaks: Vec<Vec<NodeId>>,
    pub continues: Vec<Vec<NodeId>>,
}

/// The walk's state.
pub(crate) struct Builder<'a> {
    pub cx: &'a Context<'a>,
    pub func: &'a Function,
    pub stage: Option<naga::ShaderStage>,
    /// Where each `let` is written, when naga's span for its value says otherwise.
    pub let_spans: std::collections::HashMap<Handle<naga::Expression>, Span>,
    pub g: Graph,
    pub sp: Specials,
    /// Each expression's value node, once evaluated.
    pub values: Vec<Option<NodeId>>,
    /// Current value of each function-scope variable: locals, then pointer parameters.
    pub vars: Vec<NodeId>,
    pub frames: Vec<Frame>,
    /// What the walk found so far.
    pub found: Findings,
}

/// Builds the graph of `func` (an entry point when `stage` is set).
pub(crate) fn build(
    cx: &Context<'_>,
    name: &str,
    func: &Function,
    stage: Option<naga::ShaderStage>,
) -> FunctionGraph {
    let mut g = Graph::default();
    let undefined = Span::UNDEFINED;
    let required = Severity::ALL.map(|s| {
        g.add(
            Kind::Plain,
            undefined,
            format!("RequiredToBeUniform.{}", s.name()),
        )
    });
    let may_be_non_uniform = g.add(Kind::MayBeNonUniform, undefined, "MayBeNonUniform");
    let cf_start = g.add(Kind::CfStart, undefined, format!("the start of `{name}`"));
    let mut params = Vec::new();
    let mut param_contents = Vec::new();
    let mut return_contents = Vec::new();
    for (i, arg) in func.arguments.iter().enumerate() {
        let arg_name = arg.name.clone().unwrap_or_else(|| format!("#{i}"));
        params.push(g.add(Kind::Param, undefined, format!("parameter `{arg_name}`")));
        if is_function_pointer(cx.module, arg.ty) {
            param_contents.push(Some(g.add(
                Kind::Param,
                undefined,
                format!("the value `{arg_name}` points to"),
            )));
            return_contents.push(Some(g.add(Kind::Plain, undefined, "")));
        } else {
            param_contents.push(None);
            return_contents.push(None);
        }
    }
    let value_return = func
        .result
        .as_ref()
        .map(|_| g.add(Kind::Plain, undefined, "Value_return"));
    let sp = Specials {
        required,
        may_be_non_uniform,
        cf_start,
        params,
        param_contents,
        value_return,
        return_contents,
    };
    let mut vars: Vec<NodeId> = vec![cf_start; func.local_variables.len()];
    for (i, c) in sp.param_contents.iter().enumerate() {
        vars.push(c.unwrap_or(sp.params[i]));
    }
    let let_spans = locate_lets(cx.source, func);
    let mut b = Builder {
        cx,
        func,
        stage,
        let_spans,
        g,
        sp,
        values: vec![None; func.expressions.len()],
        vars,
        frames: Vec::new(),
        found: Findings::default(),
    };
    let cf_start = b.sp.cf_start;
    b.block(cf_start, &func.body);
    if behavior::of_block(&func.body).has(Behaviors::NEXT) {
        b.return_contents();
    }
    let named = func
        .named_expressions
        .iter()
        // naga names `_ = e` "phony", and parameters by their own names; those are no `let`s.
        .filter(|(h, n)| {
            let parameter = match func.expressions[**h] {
                naga::Expression::FunctionArgument(i) => {
                    func.arguments[i as usize].name.as_ref() == Some(*n)
                }
                _ => false,
            };
            n.as_str() != "phony" && !parameter
        })
        .map(|(h, n)| {
            let span = b.span_of(*h);
            // A `let` that only renames a parameter or constant leaves nothing to evaluate in
            // naga's IR: its value is taken at the start of the function.
            let node = match b.values[h.index()] {
                Some(node) => node,
                None => b.eval(*h, cf_start),
            };
            (n.clone(), span, node)
        })
        .collect();
    FunctionGraph {
        name: name.to_owned(),
        graph: b.g,
        special: b.sp,
        found: b.found,
        named,
    }
}

/// Where each `let` of `func` is written, for the `let`s naga gives no span of their own:
/// `source` is the text naga parsed `func` from. For a caller without the analysis's
/// [`Source`] (`divlab profile`'s line map).
pub(crate) fn let_spans(
    source: &str,
    func: &Function,
) -> std::collections::HashMap<Handle<naga::Expression>, Span> {
    locate_lets(&Source::new("", source), func)
}

/// Finds where each `let` of `func` is written. naga keeps only the name: a `let` of a loaded
/// variable has an undefined span, one that renames a parameter has the parameter's span, and
/// one of a load through a `let` pointer has that pointer's span.
fn locate_lets(
    source: &Source,
    func: &Function,
) -> std::collections::HashMap<Handle<naga::Expression>, Span> {
    let defined = || {
        func.expressions
            .iter()
            .map(|(h, _)| func.expressions.get_span(h))
            .chain(func.body.span_iter().map(|(_, s)| *s))
            .filter_map(|s| s.to_range().filter(|_| s.is_defined()))
    };
    let Some(start) = defined().map(|r| r.start).min() else {
        return Default::default();
    };
    let text = &source.prepared;
    let mut next_from: std::collections::HashMap<&str, usize> = Default::default();
    let mut out = std::collections::HashMap::new();
    let mut handles: Vec<_> = func.named_expressions.iter().collect();
    handles.sort_by_key(|(h, _)| h.index());
    for (h, name) in handles {
        let from = *next_from.get(name.as_str()).unwrap_or(&start);
        let found = if name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            // The source's index of `let`s: scanning the text from the function's start for
            // each `let` was quadratic in the length of a long function.
            let offsets = source.let_offsets(name);
            let first = offsets.partition_point(|&i| i < from.min(text.len()));
            offsets.get(first).copied()
        } else {
            text[from.min(text.len())..]
                .match_indices("let ")
                .map(|(i, _)| from + i)
                .find(|&i| {
                    let rest = text[i + 4..].trim_start();
                    rest.starts_with(name.as_str())
                        && !rest[name.len()..]
                            .starts_with(|c: char| c.is_alphanumeric() || c == '_')
                        && (i == 0 || !text.as_bytes()[i - 1].is_ascii_alphanumeric())
                })
        };
        if let Some(at) = found {
            next_from.insert(name, at + 4);
            let own = func.expressions.get_span(*h);
            let end = text[at..].find(';').map_or(text.len(), |i| at + i);
            let own_inside = own.is_defined()
                && own
                    .to_range()
                    .is_some_and(|r| r.start > at && r.start < end);
            if !own_inside {
                out.insert(*h, Span::from(at..at + 4 + name.len()));
            }
        }
    }
    out
}

/// Whether a type is a pointer into the function address space.
pub(crate) fn is_function_pointer(module: &naga::Module, ty: Handle<naga::Type>) -> bool {
    matches!(
        module.types[ty].inner,
        naga::TypeInner::Pointer {
            space: naga::AddressSpace::Function,
            ..
        }
    )
}

impl Builder<'_> {
    /// Where an expression is written: its `let`, for one naga gives no span of its own.
    pub fn span_of(&self, h: Handle<naga::Expression>) -> Span {
        self.let_spans
            .get(&h)
            .copied()
            .unwrap_or_else(|| self.func.expressions.get_span(h))
    }

    pub fn point(&mut self, span: Span, cf: NodeId) {
        if span.is_defined() {
            self.found.points.push(Point { span, cf });
        }
    }

    /// `Value_return_i_contents -> Vin(prev)` for each function-address-space pointer parameter.
    pub fn return_contents(&mut self) {
        let locals = self.func.local_variables.len();
        for i in 0..self.sp.return_contents.len() {
            if let Some(rc) = self.sp.return_contents[i] {
                let v = self.vars[locals + i];
                self.g.edge(rc, v);
            }
        }
    }

    /// Joins variable states where control flow paths meet: one node per variable whose
    /// incoming values differ.
    pub fn merge(&mut self, states: Vec<Vec<NodeId>>) {
        let Some(first) = states.first() else {
            return;
        };
        let mut out = first.clone();
        for (i, slot) in out.iter_mut().enumerate() {
            // Most variables are the same on every path: no list to build for them (a join
            // touches every variable of the function, so this runs for each, at each join).
            if states.iter().all(|s| s[i] == *slot) {
                continue;
            }
            let mut incoming: Vec<NodeId> = states.iter().map(|s| s[i]).collect();
            incoming.sort_unstable();
            incoming.dedup();
            if incoming.len() > 1 {
                let name = self.var_name(i);
                let n = self.g.add(
                    Kind::Value,
                    Span::UNDEFINED,
                    format!("{name} where paths join"),
                );
                for v in incoming {
                    self.g.edge(n, v);
                }
                *slot = n;
            }
        }
        self.vars = out;
    }

    /// The name of variable slot `i`, for messages.
    pub fn var_name(&self, i: usize) -> String {
        let locals = self.func.local_variables.len();
        if i < locals {
            // The handle of slot `i` without walking the arena to it (`iter().nth(i)` did, for
            // each variable at each loop: quadratic in a long function).
            let handle = self
                .func
                .local_variables
                .range_from(i)
                .next()
                .expect("slot in range");
            self.func.local_variables[handle]
                .name
                .as_ref()
                .map_or_else(|| "a temporary".to_owned(), |n| format!("`{n}`"))
        } else {
            let arg = &self.func.arguments[i - locals];
            format!("`*{}`", arg.name.as_deref().unwrap_or("param"))
        }
    }

    /// Records a requirement: an edge from `RequiredToBeUniform.S` to `node`.
    pub fn require(&mut self, r: Requirement) {
        let idx = Severity::ALL
            .iter()
            .position(|s| *s == r.severity)
            .expect("a severity");
        self.g.edge(self.sp.required[idx], r.node);
        self.found.requirements.push(r);
    }

    /// The name of the function being walked.
    pub fn function_name(&self) -> String {
        self.func.name.clone().unwrap_or_default()
    }

    /// The cause a builtin call in this function contributes to requirements.
    pub fn cause(&self, rule: Rule, what: &str, span: Span) -> Cause {
        Cause {
            rule,
            what: what.to_owned(),
            span,
            function: self.function_name(),
        }
    }

    /// Requires control flow `cf` at the builtin call `span` to be uniform; returns the builtin
    /// as a cause, for requirements on its arguments.
    pub fn require_builtin_call(
        &mut self,
        severity: Severity,
        rule: Rule,
        cf: NodeId,
        span: Span,
        what: String,
    ) -> Cause {
        let cause = self.cause(rule, &what, span);
        self.require(Requirement {
            severity,
            rule,
            node: cf,
            site: span,
            call: span,
            what,
            causes: vec![cause.clone()],
            argument: false,
        });
        cause
    }

    /// Requires an argument (value `node`, written at `site`) of the builtin call behind
    /// `cause` to be uniform.
    pub fn require_builtin_argument(
        &mut self,
        severity: Severity,
        cause: Cause,
        node: NodeId,
        site: Span,
        what: String,
    ) {
        self.require(Requirement {
            severity,
            rule: cause.rule,
            node,
            site,
            call: cause.span,
            what,
            causes: vec![cause],
            argument: true,
        });
    }

    /// `expr`'s own span when it lies within `outer`: naga gives an expression that names a
    /// `let` or parameter the span of its declaration.
    pub fn span_within(&self, expr: Handle<naga::Expression>, outer: Span) -> Option<Span> {
        let own = self.func.expressions.get_span(expr);
        let (o, out) = (own.to_range()?, outer.to_range()?);
        (own.is_defined() && out.start <= o.start && o.end <= out.end).then_some(own)
    }
}
