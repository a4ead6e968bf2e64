//! Expressions and assignments: the spec's "Uniformity Rules for Expressions" and the value
//! sources (built-in values, module-scope variables, function-scope variables through their
//! assignments, `textureLoad`, derivatives). Calls and the builtins naga makes statements of
//! are in `calls.rs`.
//!
//! Every value node links to the control flow where it is computed, as the spec's literal and
//! identifier rules do: a value computed in non-uniform control flow is non-uniform.

use naga::{Expression, Handle, Span};

use super::Scope;
use super::builtins;
use super::function::Builder;
use super::graph::{Kind, NodeId};
use super::source::Rule;

/// Where a pointer expression leads.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Root {
    /// A function-scope variable (a local, or a desugared function-space pointer parameter).
    Var(usize),
    /// A module-scope variable.
    Global(Handle<naga::GlobalVariable>),
    /// A pointer parameter into another address space.
    PtrParam { read_only: bool, index: u32 },
    /// Anything else.
    Unknown,
}

impl Builder<'_> {
    /// The value node of `h` used at control flow `cf`.
    pub fn value(&mut self, h: Handle<Expression>, cf: NodeId) -> NodeId {
        if let Some(n) = self.values[h.index()] {
            return n;
        }
        // Not emitted: constants, literals, pointers to variables, arguments, and constant
        // sub-expressions. They are as uniform as the control flow where they are used.
        self.eval(h, cf)
    }

    fn text_of(&self, h: Handle<Expression>) -> String {
        match self.func.named_expressions.get(&h) {
            Some(name) => format!("`{name}`"),
            None => format!(
                "`{}`",
                self.cx.source.snippet(self.func.expressions.get_span(h))
            ),
        }
    }

    /// A value node depending on `cf` and on the given operands.
    fn combine(&mut self, h: Handle<Expression>, cf: NodeId, ops: &[Handle<Expression>]) -> NodeId {
        let span = self.func.expressions.get_span(h);
        let text = self.text_of(h);
        let n = self.g.add(Kind::Value, span, text);
        self.g.edge(n, cf);
        for &op in ops {
            let v = self.value(op, cf);
            self.g.edge(n, v);
        }
        n
    }

    /// A direct source of non-uniformity (an edge to `MayBeNonUniform`), at control flow `cf`.
    pub fn source(&mut self, span: Span, cf: NodeId, text: String) -> NodeId {
        let n = self.g.add(Kind::Source, span, text);
        self.g.edge(n, self.sp.may_be_non_uniform);
        self.g.edge(n, cf);
        n
    }

    /// Evaluates `h` at control flow `cf` (at its `Emit`, or at its use when never emitted).
    pub fn eval(&mut self, h: Handle<Expression>, cf: NodeId) -> NodeId {
        use Expression as E;
        let span = self.func.expressions.get_span(h);
        match self.func.expressions[h] {
            E::Literal(_)
            | E::Constant(_)
            | E::Override(_)
            | E::ZeroValue(_)
            | E::GlobalVariable(_)
            | E::LocalVariable(_) => cf,
            E::FunctionArgument(i) => self.argument(h, i, cf),
            E::Compose { ref components, .. } => {
                let ops = components.clone();
                self.combine(h, cf, &ops)
            }
            E::Access { base, index } => self.combine(h, cf, &[base, index]),
            E::AccessIndex { base, .. } => self.combine(h, cf, &[base]),
            E::Splat { value, .. } => self.combine(h, cf, &[value]),
            E::Swizzle { vector, .. } => self.combine(h, cf, &[vector]),
            E::Unary { expr, .. } | E::As { expr, .. } => self.combine(h, cf, &[expr]),
            E::Binary { left, right, .. } => self.combine(h, cf, &[left, right]),
            E::Select {
                condition,
                accept,
                reject,
            } => self.combine(h, cf, &[condition, accept, reject]),
            E::Relational { argument, .. } => self.combine(h, cf, &[argument]),
            E::ArrayLength(e) => self.combine(h, cf, &[e]),
            E::Math {
                arg,
                arg1,
                arg2,
                arg3,
                ..
            } => {
                let ops: Vec<_> = [Some(arg), arg1, arg2, arg3]
                    .into_iter()
                    .flatten()
                    .collect();
                self.combine(h, cf, &ops)
            }
            E::Load { pointer } => self.load(h, pointer, cf),
            E::ImageSample {
                image,
                sampler,
                gather,
                coordinate,
                level,
                ..
            } => {
                let implicit =
                    matches!(level, naga::SampleLevel::Auto | naga::SampleLevel::Bias(_));
                if implicit && gather.is_none() {
                    self.derivative(cf, span, "textureSample");
                    self.source(
                        span,
                        cf,
                        "the result of an implicit-level `textureSample`".into(),
                    )
                } else {
                    self.combine(h, cf, &[image, sampler, coordinate])
                }
            }
            E::ImageLoad {
                image, coordinate, ..
            } => {
                if self.is_read_write_storage_texture(image) {
                    let text = "the result of `textureLoad` from a read-write storage texture";
                    self.source(span, cf, text.into())
                } else {
                    self.combine(h, cf, &[image, coordinate])
                }
            }
            E::ImageQuery { image, .. } => self.combine(h, cf, &[image]),
            E::Derivative { .. } => {
                self.derivative(cf, span, "a derivative builtin");
                self.source(span, cf, "the result of a derivative".into())
            }
            // Results are set by their statements; one used before (never in valid IR) and the
            // ray-query and cooperative-matrix values are treated as non-uniform.
            _ => {
                let text = format!("{} (not analyzed by divlab)", self.text_of(h));
                self.source(span, cf, text)
            }
        }
    }

    /// A formal parameter used at `cf`.
    fn argument(&mut self, h: Handle<Expression>, i: u32, cf: NodeId) -> NodeId {
        let span = self.func.expressions.get_span(h);
        let arg = &self.func.arguments[i as usize];
        let arg_name = arg.name.clone().unwrap_or_else(|| format!("#{i}"));
        let Some(stage) = self.stage else {
            // A pointer parameter into another address space is a memory view the caller
            // chose: as uniform as the control flow here and `param_i`, so that a requirement
            // on it (`workgroupUniformLoad(p)`, a read through `p`) becomes the parameter's
            // tag. The spec's table gives it `CF` alone, which would lose
            // `ParameterRequiredToBeUniform` ("the memory view ... must be uniform"); Tint
            // links it to the parameter too (`call_pointer_uniform_load`).
            let param = self.sp.params[i as usize];
            let n = self
                .g
                .add(Kind::Value, span, format!("parameter `{arg_name}`"));
            self.g.edge(n, cf);
            self.g.edge(n, param);
            return n;
        };
        // Entry point inputs: built-in values by the spec's list; user-defined inputs are
        // non-uniform; a structure is non-uniform when any member is.
        let mut non_uniform = Vec::new();
        let mut classify = |binding: Option<&naga::Binding>, name: &str| match binding {
            Some(naga::Binding::BuiltIn(b)) => {
                if !builtins::builtin_is_uniform(*b, stage, self.cx.scope) {
                    let builtin = builtins::builtin_name(*b);
                    non_uniform.push(if builtin == name {
                        format!("`{builtin}`")
                    } else {
                        format!("`{name}` (`{builtin}`)")
                    });
                }
            }
            _ => non_uniform.push(format!("the user-defined input `{name}`")),
        };
        match (&arg.binding, &self.cx.module.types[arg.ty].inner) {
            (None, naga::TypeInner::Struct { members, .. }) => {
                for m in members {
                    let member = format!("{arg_name}.{}", m.name.as_deref().unwrap_or("?"));
                    classify(m.binding.as_ref(), &member);
                }
            }
            (binding, _) => classify(binding.as_ref(), &arg_name),
        }
        if non_uniform.is_empty() {
            cf
        } else {
            self.source(span, cf, non_uniform.join(", "))
        }
    }

    /// Follows a pointer expression to what it points into; `true` when it is a full reference
    /// (the whole variable, not a component).
    pub fn root(&self, mut p: Handle<Expression>) -> (Root, bool) {
        let mut full = true;
        loop {
            match self.func.expressions[p] {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                    full = false;
                    p = base;
                }
                Expression::LocalVariable(v) => return (Root::Var(v.index()), full),
                Expression::GlobalVariable(g) => return (Root::Global(g), full),
                Expression::FunctionArgument(i) => {
                    let ty = self.func.arguments[i as usize].ty;
                    let root = match self.cx.module.types[ty].inner {
                        naga::TypeInner::Pointer {
                            space: naga::AddressSpace::Function,
                            ..
                        } => Root::Var(self.func.local_variables.len() + i as usize),
                        naga::TypeInner::Pointer { space, .. } => Root::PtrParam {
                            read_only: builtins::space_is_read_only(space),
                            index: i,
                        },
                        _ => Root::Unknown,
                    };
                    return (root, full);
                }
                _ => return (Root::Unknown, full),
            }
        }
    }

    /// The load rule applied to `pointer`.
    fn load(&mut self, h: Handle<Expression>, pointer: Handle<Expression>, cf: NodeId) -> NodeId {
        let span = self.func.expressions.get_span(h);
        let (root, _) = self.root(pointer);
        match root {
            Root::Var(slot) => {
                let n = self.combine(h, cf, &[pointer]);
                self.g.edge(n, self.vars[slot]);
                n
            }
            Root::Global(g) => {
                let var = &self.cx.module.global_variables[g];
                if builtins::space_is_read_only(var.space) {
                    self.combine(h, cf, &[pointer])
                } else {
                    let text = format!(
                        "a load from `{} {}`",
                        builtins::space_name(var.space),
                        var.name.as_deref().unwrap_or("?")
                    );
                    self.source(span, cf, text)
                }
            }
            Root::PtrParam { read_only, index } => {
                if read_only {
                    self.combine(h, cf, &[pointer])
                } else {
                    let name = self.func.arguments[index as usize]
                        .name
                        .clone()
                        .unwrap_or_default();
                    self.source(
                        span,
                        cf,
                        format!("a load through pointer parameter `{name}`"),
                    )
                }
            }
            Root::Unknown => self.combine(h, cf, &[pointer]),
        }
    }

    /// An assignment: the variable's new value depends on the control flow, the right-hand
    /// side, the indices on the left, and, for a partial assignment, its previous value.
    pub fn store(
        &mut self,
        cf: NodeId,
        pointer: Handle<Expression>,
        value: Handle<Expression>,
        span: Span,
    ) {
        let (root, full) = self.root(pointer);
        // Assignments to module-scope variables and through other pointers: the spec's LHS
        // node is MayBeNonUniform, so nothing is tracked.
        let Root::Var(slot) = root else {
            let _ = self.value(value, cf);
            return;
        };
        let rhs = self.value(value, cf);
        let lhs = self.value(pointer, cf);
        let name = self.var_name(slot);
        let text = if full {
            format!("{name}, assigned here")
        } else {
            format!("{name}, partly assigned here")
        };
        let n = self.g.add(Kind::Value, span, text);
        self.g.edge(n, cf);
        self.g.edge(n, rhs);
        self.g.edge(n, lhs);
        if !full {
            self.g.edge(n, self.vars[slot]);
        }
        self.vars[slot] = n;
    }

    fn is_read_write_storage_texture(&self, image: Handle<Expression>) -> bool {
        let ty = match self.func.expressions[image] {
            Expression::GlobalVariable(g) => self.cx.module.global_variables[g].ty,
            Expression::FunctionArgument(i) => self.func.arguments[i as usize].ty,
            _ => return false,
        };
        matches!(
            self.cx.module.types[ty].inner,
            naga::TypeInner::Image {
                class: naga::ImageClass::Storage { access, .. },
                ..
            } if access.contains(naga::StorageAccess::LOAD | naga::StorageAccess::STORE)
        )
    }

    /// Derivatives and implicit-level sampling: `derivative_uniformity` at workgroup scope.
    fn derivative(&mut self, cf: NodeId, span: Span, name: &str) {
        if self.cx.scope != Scope::Workgroup {
            return;
        }
        let rule = Rule::DerivativeUniformity;
        if let Some(severity) = self
            .cx
            .source
            .severity_at(rule, span.to_range().unwrap_or(0..0).start)
        {
            self.require_builtin_call(severity, rule, cf, span, format!("`{name}`"));
        }
    }
}
