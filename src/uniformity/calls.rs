//! Calls: the spec's "Uniformity Rules for Function Calls" for user functions (by the callee's
//! tags) and for the builtins naga lowers into statements: atomics, `workgroupUniformLoad`, and
//! the subgroup and quad builtins (their call-site tags, the `delta`/`mask` parameter tags, and
//! which results are uniform at subgroup scope).

use naga::{Expression, Handle, Span, Statement};

use super::builtins;
use super::expr::Root;
use super::function::{Builder, CallSite, Requirement};
use super::graph::{Kind, NodeId};
use super::source::{Rule, Severity};
use super::{Scope, tags::Tag};

impl Builder<'_> {
    /// Where argument `index` of the call at `call` is written.
    fn arg_span(&self, arg: Handle<Expression>, call: Span, index: usize) -> Span {
        self.span_within(arg, call)
            .or_else(|| self.cx.source.argument_span(call, index))
            .unwrap_or(call)
    }

    /// The call-site (and `delta`/`mask` parameter) tags of a subgroup or quad builtin: enforced
    /// at subgroup scope when the `subgroup_uniformity` language extension is supported, else at
    /// workgroup scope, with the nearest `subgroup_uniformity` filter's severity.
    pub fn subgroup_requirements(
        &mut self,
        cf: NodeId,
        name: &str,
        span: Span,
        uniform_arg: Option<(NodeId, Span, &str)>,
    ) {
        let enforced =
            self.cx.scope == Scope::Subgroup || !self.cx.options.subgroup_uniformity_extension;
        if !enforced {
            return;
        }
        let rule = Rule::SubgroupUniformity;
        let at = span.to_range().unwrap_or(0..0).start;
        let Some(severity) = self.cx.source.severity_at(rule, at) else {
            return;
        };
        let cause = self.require_builtin_call(severity, rule, cf, span, format!("`{name}`"));
        if let Some((node, arg_span, param)) = uniform_arg {
            let what = format!("the `{param}` argument of `{name}`");
            self.require_builtin_argument(severity, cause, node, arg_span, what);
        }
    }

    /// A subgroup or quad builtin's result. At subgroup scope the reductions, ballots and
    /// broadcasts have the function tag `NoRestriction` and keep the default parameter return
    /// tag `ParameterReturnContentsRequiredToBeUniform` ("Uniformity Rules for Function Calls"):
    /// their result is as uniform as the control flow and their `args`. Every other subgroup and
    /// quad result, and every one at workgroup scope, may be non-uniform.
    fn subgroup_result(
        &mut self,
        name: &str,
        span: Span,
        cf: NodeId,
        args: &[NodeId],
        result: Handle<Expression>,
    ) {
        let node = if self.cx.scope == Scope::Subgroup && builtins::uniform_at_subgroup_scope(name)
        {
            let n = self
                .g
                .add(Kind::Value, span, format!("the result of `{name}`"));
            self.g.edge(n, cf);
            for &a in args {
                self.g.edge(n, a);
            }
            n
        } else if builtins::uniform_at_subgroup_scope(name) {
            let text = format!("the result of `{name}` (uniform at most within a subgroup)");
            self.source(span, cf, text)
        } else {
            self.source(span, cf, format!("the result of `{name}`"))
        };
        self.values[result.index()] = Some(node);
    }

    /// Statements other than control flow, assignments, barriers and user calls.
    pub fn other_statement(&mut self, cf: NodeId, s: &Statement, span: Span) {
        match *s {
            Statement::Atomic {
                pointer,
                ref fun,
                value,
                result,
            } => {
                let _ = self.value(pointer, cf);
                let _ = self.value(value, cf);
                if let Some(r) = result {
                    let text = format!("the result of `{}`", builtins::atomic_name(fun));
                    let n = self.source(span, cf, text);
                    self.values[r.index()] = Some(n);
                }
            }
            Statement::WorkGroupUniformLoad { pointer, result } => {
                let p = self.value(pointer, cf);
                if self.cx.scope == Scope::Workgroup {
                    let what = "`workgroupUniformLoad`".to_owned();
                    let cause =
                        self.require_builtin_call(Severity::Error, Rule::Barrier, cf, span, what);
                    let site = self.arg_span(pointer, span, 0);
                    let what = "the pointer passed to `workgroupUniformLoad`".to_owned();
                    self.require_builtin_argument(Severity::Error, cause, p, site, what);
                }
                let n = self
                    .g
                    .add(Kind::Value, span, "the result of `workgroupUniformLoad`");
                self.g.edge(n, cf);
                self.g.edge(n, p);
                self.values[result.index()] = Some(n);
            }
            Statement::SubgroupBallot { result, predicate } => {
                let args: Vec<NodeId> = predicate.map(|p| self.value(p, cf)).into_iter().collect();
                self.subgroup_requirements(cf, "subgroupBallot", span, None);
                self.subgroup_result("subgroupBallot", span, cf, &args, result);
            }
            Statement::SubgroupGather {
                ref mode,
                argument,
                result,
            } => {
                let mut args = vec![self.value(argument, cf)];
                let (name, uniform_param) = builtins::gather_name(mode);
                let index = match *mode {
                    naga::GatherMode::Broadcast(i)
                    | naga::GatherMode::Shuffle(i)
                    | naga::GatherMode::ShuffleDown(i)
                    | naga::GatherMode::ShuffleUp(i)
                    | naga::GatherMode::ShuffleXor(i)
                    | naga::GatherMode::QuadBroadcast(i) => Some(i),
                    _ => None,
                };
                let uniform_arg = match (index, uniform_param) {
                    (Some(i), Some(param)) => {
                        let node = self.value(i, cf);
                        args.push(node);
                        Some((node, self.arg_span(i, span, 1), param))
                    }
                    (Some(i), None) => {
                        args.push(self.value(i, cf));
                        None
                    }
                    _ => None,
                };
                self.subgroup_requirements(cf, name, span, uniform_arg);
                self.subgroup_result(name, span, cf, &args, result);
            }
            Statement::SubgroupCollectiveOperation {
                op,
                collective_op,
                argument,
                result,
            } => {
                let args = [self.value(argument, cf)];
                let at = span.to_range().unwrap_or(0..0).start;
                let name = if self.cx.source.is_elect(at) {
                    "subgroupElect".to_owned()
                } else {
                    builtins::collective_name(op, collective_op)
                };
                self.subgroup_requirements(cf, &name, span, None);
                self.subgroup_result(&name, span, cf, &args, result);
            }
            Statement::ImageStore {
                image,
                coordinate,
                value,
                ..
            } => {
                for e in [image, coordinate, value] {
                    let _ = self.value(e, cf);
                }
            }
            _ => {}
        }
    }

    /// A call to a user-defined function, by the callee's tags.
    pub fn call(
        &mut self,
        cf: NodeId,
        callee: Handle<naga::Function>,
        arguments: &[Handle<Expression>],
        result: Option<Handle<Expression>>,
        span: Span,
    ) {
        let tags = self.cx.tags[callee.index()].clone();
        let callee_name = self.cx.module.functions[callee]
            .name
            .clone()
            .unwrap_or_default();
        let mut args = Vec::new();
        let mut contents = Vec::new();
        let mut roots = Vec::new();
        for &a in arguments {
            let v = self.value(a, cf);
            args.push(v);
            let (root, full) = self.root(a);
            match root {
                Root::Var(slot)
                    if tags
                        .params
                        .get(args.len() - 1)
                        .is_some_and(|p| p.pointer.is_some()) =>
                {
                    let c = self.g.join(&[self.vars[slot], v]);
                    contents.push(Some(c));
                    roots.push(Some((slot, full)));
                }
                _ => {
                    contents.push(None);
                    roots.push(None);
                }
            }
        }
        let r = self
            .g
            .add(Kind::Value, span, format!("the result of `{callee_name}`"));
        self.g.edge(r, cf);
        if let Some(tag) = &tags.call_site {
            self.require_tag(
                tag,
                cf,
                (span, span),
                format!("the call to `{callee_name}`"),
                false,
            );
        }
        if let Some(reason) = &tags.return_non_uniform {
            let text = format!("the return value of `{callee_name}`, {reason}");
            let s = self.source(span, cf, text);
            self.g.edge(r, s);
        }
        let mut updates = Vec::new();
        for (i, p) in tags.params.iter().enumerate().take(args.len()) {
            let arg_span = self.arg_span(arguments[i], span, i);
            let param = p.name.clone();
            if let Some(tag) = &p.required {
                let what = format!("argument `{param}` of `{callee_name}`");
                self.require_tag(tag, args[i], (arg_span, span), what, true);
            }
            if let (Some(tag), Some(c)) = (&p.contents_required, contents[i]) {
                let what = format!("what argument `{param}` of `{callee_name}` points to");
                self.require_tag(tag, c, (arg_span, span), what, true);
            }
            if p.return_value {
                self.g.edge(r, args[i]);
            }
            if let (true, Some(c)) = (p.return_contents, contents[i]) {
                self.g.edge(r, c);
            }
            if let (Some(ptr), Some((slot, full))) = (&p.pointer, roots[i]) {
                let name = self.var_name(slot);
                let text = format!("{name} after the call to `{callee_name}`");
                let out = self.g.add(Kind::Value, span, text);
                self.g.edge(out, cf);
                if !full {
                    // A pointer to part of the variable (`&a[1]`, `&s.b`, `&(*p)[1]`, even
                    // `&one[0]`): whatever the callee stores, it is a partial assignment, which
                    // keeps the previous value ("Function-scope Variable Value Analysis").
                    self.g.edge(out, self.vars[slot]);
                }
                if let Some(reason) = &ptr.may_be_non_uniform {
                    let text = format!("what `{callee_name}` stores through `{param}`, {reason}");
                    let s = self.source(span, cf, text);
                    self.g.edge(out, s);
                }
                for &j in &ptr.from_values {
                    if let Some(&a) = args.get(j) {
                        self.g.edge(out, a);
                    }
                }
                for &j in &ptr.from_contents {
                    if let Some(Some(c)) = contents.get(j) {
                        self.g.edge(out, *c);
                    }
                }
                updates.push((slot, out));
            }
        }
        for (slot, out) in updates {
            self.vars[slot] = out;
        }
        if let Some(res) = result {
            self.values[res.index()] = Some(r);
        }
        self.found.calls.push(CallSite {
            callee,
            span,
            cf,
            args,
            contents,
        });
    }

    /// One requirement per triggering rule of a callee's tag.
    fn require_tag(
        &mut self,
        tag: &Tag,
        node: NodeId,
        (site, call): (Span, Span),
        what: String,
        argument: bool,
    ) {
        let mut rules: Vec<Rule> = tag.causes.iter().map(|c| c.rule).collect();
        rules.sort();
        rules.dedup();
        for rule in rules {
            let causes = tag
                .causes
                .iter()
                .filter(|c| c.rule == rule)
                .cloned()
                .collect();
            self.require(Requirement {
                severity: tag.severity,
                rule,
                node,
                site,
                call,
                what: what.clone(),
                causes,
                argument,
            });
        }
    }
}
