//! Statements: the spec's "Uniformity Rules for Statements" (sequences, `if`, `switch`, `loop`
//! with `continuing` and `break if`, `break`, `continue`, `return`, barriers) and the joins of
//! function-scope variable values where control flow meets.

use naga::{Block, Handle, Span, Statement};

use super::Scope;
use super::behavior::{self, Behaviors};
use super::function::{Builder, Frame};
use super::graph::{Kind, NodeId};
use super::source::{Rule, Severity};
use crate::shaders::span_is_borrowed;

impl Builder<'_> {
    /// Walks a statement list from `cf`; returns the control flow at its end.
    pub fn block(&mut self, mut cf: NodeId, block: &Block) -> NodeId {
        let mut reachable = true;
        for (s, span) in block.span_iter() {
            if !reachable {
                self.found.unreachable.push(*span);
                continue;
            }
            cf = self.statement(cf, s, *span);
            reachable = behavior::of_statement(s).has(Behaviors::NEXT);
        }
        cf
    }

    fn statement(&mut self, cf: NodeId, s: &Statement, span: Span) -> NodeId {
        if !matches!(s, Statement::Emit(_) | Statement::Block(_)) {
            self.point(span, cf);
        }
        match s {
            Statement::Emit(range) => {
                for h in range.clone() {
                    let node = self.eval(h, cf);
                    self.values[h.index()] = Some(node);
                    // A borrowed span is the operand's line; a `let` of it is found in the text.
                    if self.let_spans.contains_key(&h) || !span_is_borrowed(self.func, h) {
                        self.point(self.span_of(h), cf);
                    }
                }
                cf
            }
            Statement::Block(b) => self.block(cf, b),
            Statement::If {
                condition,
                accept,
                reject,
            } => self.if_statement(cf, s, span, *condition, accept, reject),
            Statement::Switch { selector, cases } => self.switch(cf, s, span, *selector, cases),
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => self.loop_statement(cf, span, body, continuing, *break_if),
            Statement::Break => {
                let state = self.vars.clone();
                if let Some(f) = self.frames.last_mut() {
                    f.breaks.push(state);
                }
                cf
            }
            Statement::Continue => {
                let state = self.vars.clone();
                if let Some(f) = self.frames.iter_mut().rev().find(|f| f.is_loop) {
                    f.continues.push(state);
                }
                cf
            }
            Statement::Return { value } => {
                if let (Some(v), Some(ret)) = (value, self.sp.value_return) {
                    let v = self.value(*v, cf);
                    self.g.edge(ret, v);
                }
                self.return_contents();
                cf
            }
            Statement::Kill => cf,
            Statement::ControlBarrier(barrier) => {
                self.barrier(cf, *barrier, span);
                cf
            }
            Statement::Store { pointer, value } => {
                self.store(cf, *pointer, *value, span);
                cf
            }
            Statement::Call {
                function,
                arguments,
                result,
            } => {
                self.call(cf, *function, arguments, *result, span);
                cf
            }
            _ => {
                self.other_statement(cf, s, span);
                cf
            }
        }
    }

    fn if_statement(
        &mut self,
        cf: NodeId,
        s: &Statement,
        span: Span,
        condition: Handle<naga::Expression>,
        accept: &Block,
        reject: &Block,
    ) -> NodeId {
        let v = self.value(condition, cf);
        let what = self.condition_phrase(accept, reject);
        let cond_span = self.written_span(condition, span, "if");
        let text = format!("{what} `{}`", self.cx.source.snippet(cond_span));
        let c = self.decision(Kind::Condition, cond_span, text, v, cf);
        let saved = self.vars.clone();
        let cf1 = self.block(c, accept);
        let s1 = std::mem::replace(&mut self.vars, saved.clone());
        let cf2 = self.block(c, reject);
        let s2 = std::mem::replace(&mut self.vars, saved);
        let mut joined = Vec::new();
        if behavior::of_block(accept).has(Behaviors::NEXT) {
            joined.push(s1);
        }
        if behavior::of_block(reject).has(Behaviors::NEXT) {
            joined.push(s2);
        }
        self.merge(joined);
        let exit = "the `return`, `break` or `continue` under the `if`";
        self.after_branches(cf, s, span, exit, &[cf1, cf2])
    }

    /// The node of a decision: it depends on the value decided on and the control flow there.
    fn decision(
        &mut self,
        kind: Kind,
        span: Span,
        text: String,
        value: NodeId,
        cf: NodeId,
    ) -> NodeId {
        let d = self.g.add(kind, span, text);
        self.g.edge(d, value);
        self.g.edge(d, cf);
        d
    }

    /// Control flow after an `if` or `switch`: `cf` again when it always falls through, else a
    /// node that depends on each branch's control flow.
    fn after_branches(
        &mut self,
        cf: NodeId,
        s: &Statement,
        span: Span,
        exit: &'static str,
        branches: &[NodeId],
    ) -> NodeId {
        if behavior::of_statement(s) == Behaviors::NEXT {
            return cf;
        }
        let e = self.g.add(Kind::Exit, span, exit);
        for &b in branches {
            self.g.edge(e, b);
        }
        e
    }

    /// Where a condition is written: its own span when it lies in the statement, else the text
    /// after the keyword (a condition that names a `let` or parameter has the span of its
    /// declaration in naga).
    fn written_span(&self, cond: Handle<naga::Expression>, stmt: Span, keyword: &str) -> Span {
        self.span_within(cond, stmt)
            .or_else(|| self.cx.source.header_span(stmt, keyword))
            .unwrap_or_else(|| self.func.expressions.get_span(cond))
    }

    /// How a message names an `if`'s condition, from naga's shapes for loop conditions and for
    /// `&&`/`||`.
    fn condition_phrase(&self, accept: &Block, reject: &Block) -> &'static str {
        let only_break = |b: &Block| b.len() == 1 && matches!(b[0], Statement::Break);
        if accept.is_empty() && only_break(reject) {
            return "the loop condition";
        }
        let stores_temp = |b: &Block| {
            b.iter().any(|s| match s {
                Statement::Store { pointer, .. } => matches!(
                    self.func.expressions[*pointer],
                    naga::Expression::LocalVariable(v) if self.func.local_variables[v].name.is_none()
                ),
                _ => false,
            })
        };
        if stores_temp(accept) && stores_temp(reject) {
            "the left operand of `&&`/`||`"
        } else {
            "the `if` condition"
        }
    }

    fn switch(
        &mut self,
        cf: NodeId,
        s: &Statement,
        span: Span,
        selector: Handle<naga::Expression>,
        cases: &[naga::SwitchCase],
    ) -> NodeId {
        let v = self.value(selector, cf);
        let sel_span = self.written_span(selector, span, "switch");
        let text = format!(
            "the `switch` selector `{}`",
            self.cx.source.snippet(sel_span)
        );
        let c = self.decision(Kind::Condition, sel_span, text, v, cf);
        let saved = self.vars.clone();
        let mut exits = Vec::new();
        let mut case_cfs = Vec::new();
        for case in cases
            .iter()
            .filter(|c| !(c.fall_through && c.body.is_empty()))
        {
            self.vars = saved.clone();
            self.frames.push(Frame {
                is_loop: false,
                breaks: Vec::new(),
                continues: Vec::new(),
            });
            let cf_case = self.block(c, &case.body);
            let frame = self.frames.pop().expect("pushed above");
            case_cfs.push(cf_case);
            if behavior::of_block(&case.body).has(Behaviors::NEXT) {
                exits.push(self.vars.clone());
            }
            exits.extend(frame.breaks);
        }
        self.vars = saved;
        self.merge(exits);
        let exit = "the `return` or `continue` in the `switch`";
        self.after_branches(cf, s, span, exit, &case_cfs)
    }

    fn loop_statement(
        &mut self,
        cf: NodeId,
        span: Span,
        body: &Block,
        continuing: &Block,
        break_if: Option<Handle<naga::Expression>>,
    ) -> NodeId {
        let b1 = behavior::of_block(body);
        self.frames.push(Frame {
            is_loop: true,
            breaks: Vec::new(),
            continues: Vec::new(),
        });
        if !b1.intersects(Behaviors::NEXT.with(Behaviors::CONTINUE)) {
            // The body never reaches the continuing block: one pass, no back edge.
            let cf1 = self.block(cf, body);
            let frame = self.frames.pop().expect("pushed above");
            for (_, span) in continuing.span_iter() {
                self.found.unreachable.push(*span);
            }
            self.merge(frame.breaks);
            return if b1 == Behaviors::BREAK { cf } else { cf1 };
        }
        let head = self.g.add(Kind::LoopHead, span, "the loop");
        self.g.edge(head, cf);
        // Each variable's value at the top of an iteration: from before the loop, and (below)
        // from the end of the continuing block of the previous iteration.
        let mut phis = Vec::with_capacity(self.vars.len());
        for i in 0..self.vars.len() {
            let name = self.var_name(i);
            let p = self.g.add(
                Kind::Value,
                Span::UNDEFINED,
                format!("{name} at the top of the loop"),
            );
            self.g.edge(p, self.vars[i]);
            self.vars[i] = p;
            phis.push(p);
        }
        let cf1 = self.block(head, body);
        let mut into_continuing =
            std::mem::take(&mut self.frames.last_mut().expect("pushed above").continues);
        if b1.has(Behaviors::NEXT) {
            into_continuing.push(self.vars.clone());
        }
        self.merge(into_continuing);
        let mut cf2 = self.block(cf1, continuing);
        let mut frame = self.frames.pop().expect("pushed above");
        if let Some(e) = break_if {
            let v = self.value(e, cf2);
            let e_span = self.func.expressions.get_span(e);
            let text = format!(
                "the `break if` condition `{}`",
                self.cx.source.snippet(e_span)
            );
            cf2 = self.decision(Kind::BreakIf, e_span, text, v, cf2);
            frame.breaks.push(self.vars.clone());
        } else if b1.has(Behaviors::BREAK) {
            // The spec also joins Vout(s2) into the exit when the body may break.
            frame.breaks.push(self.vars.clone());
        }
        self.g.edge(head, cf2);
        for (i, p) in phis.into_iter().enumerate() {
            self.g.edge(p, self.vars[i]);
        }
        self.merge(frame.breaks);
        if b1.has(Behaviors::RETURN) { head } else { cf }
    }

    fn barrier(&mut self, cf: NodeId, barrier: naga::Barrier, span: Span) {
        let name = if barrier.contains(naga::Barrier::SUB_GROUP) {
            // naga's `subgroupBarrier()` is not WGSL; treat it like the subgroup builtins.
            self.subgroup_requirements(cf, "subgroupBarrier", span, None);
            return;
        } else if barrier.contains(naga::Barrier::WORK_GROUP) {
            "workgroupBarrier"
        } else if barrier.contains(naga::Barrier::STORAGE) {
            "storageBarrier"
        } else {
            "textureBarrier"
        };
        if self.cx.scope == Scope::Workgroup {
            let what = format!("`{name}()`");
            self.require_builtin_call(Severity::Error, Rule::Barrier, cf, span, what);
        }
    }
}
