//! What each branch's condition reads, for the advice a cross-check gives where the code a
//! branch guards is statically non-uniform but never diverged: an invocation id (compute it
//! from `workgroup_id` instead), loaded data (read it from a `var<uniform>`), or neither (a
//! loop over constants: the advice would be wrong, so there is none). Read on naga's IR,
//! following local variables back to what is stored in them.

use std::collections::{BTreeMap, HashSet};

use naga::{
    AddressSpace, Binding, BuiltIn, Expression, Function, Handle, Module, Statement, TypeInner,
};

use super::ir::{operands, stores_to};
use crate::naga_walk::each_spanned;
use crate::profile::kernel::Kernel;
use crate::profile::report::ConditionSource;
use crate::source_map::SourceMap;

/// The source of the condition of every `if` and `for`/`while` loop of the entry point, by
/// line (where several branches share a line, an invocation id wins over data).
pub fn condition_sources(kernel: &Kernel) -> BTreeMap<u32, ConditionSource> {
    let lines = SourceMap::new(&kernel.prepared);
    let mut out = BTreeMap::new();
    let Some((function, true)) = kernel.function(&kernel.interface.entry) else {
        return out;
    };
    let mut add = |span: naga::Span, condition: Handle<Expression>| {
        let Some(line) = lines.span_line(span) else {
            return;
        };
        let source = Reader::new(&kernel.module, function).source(condition);
        let at = out.entry(line).or_insert(ConditionSource::Neither);
        *at = (*at).max(source);
    };
    each_spanned(&function.body, &mut |statement, span| match statement {
        Statement::If { condition, .. } => add(span, *condition),
        Statement::Loop { body, .. } => {
            // A `for`/`while` test: `if c {} else { break; }` at the top of the body.
            if let Some((Statement::If { condition, .. }, _)) = body.span_iter().next() {
                add(span, *condition);
            }
        }
        _ => {}
    });
    out
}

/// Follows an expression back to what it is computed from.
struct Reader<'f> {
    module: &'f Module,
    function: &'f Function,
    seen: HashSet<Handle<Expression>>,
}

impl<'f> Reader<'f> {
    fn new(module: &'f Module, function: &'f Function) -> Self {
        Self {
            module,
            function,
            seen: HashSet::new(),
        }
    }

    fn source(&mut self, e: Handle<Expression>) -> ConditionSource {
        // Each expression once (a local stored from itself), and a bound on the work.
        if !self.seen.insert(e) || self.seen.len() > 4096 {
            return ConditionSource::Neither;
        }
        let f = self.function;
        match f.expressions[e] {
            Expression::FunctionArgument(i) => {
                builtin_source(f.arguments[i as usize].binding.as_ref())
            }
            Expression::AccessIndex { base, index } => match f.expressions[base] {
                Expression::FunctionArgument(i) => {
                    let arg = &f.arguments[i as usize];
                    match self.module.types[arg.ty].inner {
                        TypeInner::Struct { ref members, .. } => members
                            .get(index as usize)
                            .map_or(ConditionSource::Neither, |m| {
                                builtin_source(m.binding.as_ref())
                            }),
                        _ => builtin_source(arg.binding.as_ref()),
                    }
                }
                _ => self.source(base),
            },
            Expression::Load { pointer } => self.load_source(pointer),
            Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. } => ConditionSource::Data,
            Expression::ImageLoad { image, .. } if self.is_storage_image(image) => {
                ConditionSource::Data
            }
            _ => self.operands_source(e),
        }
    }

    /// What the operands of `e` are computed from, the strongest of them.
    fn operands_source(&mut self, e: Handle<Expression>) -> ConditionSource {
        let mut ops = Vec::new();
        operands(&self.function.expressions[e], &mut ops);
        if let Expression::ImageLoad { coordinate, .. }
        | Expression::ImageSample { coordinate, .. } = self.function.expressions[e]
        {
            ops.push(coordinate);
        }
        ops.into_iter()
            .map(|o| self.source(o))
            .max()
            .unwrap_or(ConditionSource::Neither)
    }

    /// A value loaded through `pointer`: what a local was assigned, or a global's memory.
    fn load_source(&mut self, pointer: Handle<Expression>) -> ConditionSource {
        let f = self.function;
        let mut p = pointer;
        let mut out = ConditionSource::Neither;
        loop {
            match f.expressions[p] {
                Expression::Access { base, index } => {
                    out = out.max(self.source(index));
                    p = base;
                }
                Expression::AccessIndex { base, .. } => p = base,
                Expression::LocalVariable(v) => {
                    let (mut values, mut other) = (Vec::new(), false);
                    stores_to(&f.body, &f.expressions, v, &mut values, &mut other);
                    values.extend(f.local_variables[v].init);
                    for value in values {
                        out = out.max(self.source(value));
                    }
                    if other {
                        out = out.max(ConditionSource::Data);
                    }
                    return out;
                }
                Expression::GlobalVariable(g) => {
                    return out.max(if writable(self.module.global_variables[g].space) {
                        ConditionSource::Data
                    } else {
                        ConditionSource::Neither
                    });
                }
                _ => return out.max(self.source(p)),
            }
        }
    }

    /// Whether `image` is a storage texture, whose texels invocations may write.
    fn is_storage_image(&self, image: Handle<Expression>) -> bool {
        let Expression::GlobalVariable(g) = self.function.expressions[image] else {
            return false;
        };
        matches!(
            self.module.types[self.module.global_variables[g].ty].inner,
            TypeInner::Image {
                class: naga::ImageClass::Storage { .. },
                ..
            }
        )
    }
}

/// The source of an entry point's argument (or argument member) with `binding`.
fn builtin_source(binding: Option<&Binding>) -> ConditionSource {
    match binding {
        Some(Binding::BuiltIn(
            BuiltIn::GlobalInvocationId
            | BuiltIn::LocalInvocationId
            | BuiltIn::LocalInvocationIndex
            | BuiltIn::SubgroupInvocationId,
        )) => ConditionSource::Id,
        _ => ConditionSource::Neither,
    }
}

/// Memory that invocations write, which the analysis does not take as uniform: workgroup and
/// private memory, and storage that is not read-only.
fn writable(space: AddressSpace) -> bool {
    match space {
        AddressSpace::WorkGroup | AddressSpace::Private => true,
        AddressSpace::Storage { access } => access.contains(naga::StorageAccess::STORE),
        _ => false,
    }
}
