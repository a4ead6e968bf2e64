//! Defaults that take the kernel's real paths: where the kernel's code says what an input is,
//! its default fill follows. A uniform's integer field that the kernel only compares with 0 or
//! 1 (or turns into a `bool`) is a flag, not a count: it gets 0, or 1 where 0 would send every
//! invocation out at once. A storage buffer of integers whose elements the kernel compares
//! with 1 holds cells that are on or off: its random fill is cut to 0s and 1s. A scalar a loop
//! counts up to holds the dispatch's invocations, and a buffer whose elements one counts up to
//! holds a handful in each (`bound_fill.rs`). Anything else keeps the fill's rule (a uniform's
//! integers hold the dispatch's invocations). Read on naga's IR; a `--buffer` for the binding
//! turns it off.

use std::collections::HashMap;

use naga::{
    BinaryOperator, Block, Expression, Function, Handle, Literal, Module, ScalarKind, Statement,
};

use super::bound_fill::{TexelBound, counted};
use super::cap::global_of;
use super::ir::{Step, operands, place_of};
use crate::naga_walk::each_statement;
use crate::profile::fill::{self, Inferred, Resolved};
use crate::profile::kernel::{Access, Binding, Kernel};
use crate::source_map::SourceMap;

/// Sets [`Resolved::inferred`] on each binding of `resolved` left to the default fill whose
/// use in the kernel says what it holds; a scalar a loop counts up to holds `invocations`, and
/// a buffer whose elements one counts up to a handful in each (`bound_fill.rs`). Returns the
/// textures whose texels loops count up to, for their fills.
pub fn infer(kernel: &Kernel, resolved: &mut [Resolved], invocations: u64) -> Vec<TexelBound> {
    let module = &kernel.module;
    let lines = SourceMap::new(&kernel.prepared);
    let functions: Vec<&Function> = (module.entry_points.iter())
        .filter(|ep| ep.name == kernel.interface.entry)
        .map(|ep| &ep.function)
        .chain(module.functions.iter().map(|(_, f)| f))
        .collect();
    let counted = counted(kernel, invocations);
    let given: Vec<&str> = (resolved.iter().filter(|r| r.given))
        .map(|r| kernel.interface.bindings[r.index].name.as_str())
        .collect();
    for r in resolved.iter_mut().filter(|r| !r.given) {
        let binding = &kernel.interface.bindings[r.index];
        let Some((global, _)) = global_of(module, binding) else {
            continue;
        };
        let mut uses = Uses::default();
        for f in &functions {
            uses.read(module, f, global, &lines);
        }
        r.inferred = match binding.access {
            Access::Uniform => uses.flags(),
            Access::StorageRead | Access::StorageReadWrite => uses.cells().into_iter().collect(),
            Access::Immediate => Vec::new(),
        };
        let counts = match binding.access {
            Access::Uniform => fill::count_scalars(&binding.shape),
            _ => Vec::new(),
        };
        let inferred = &r.inferred;
        let taken = |offset: u64| {
            counts.iter().any(|&(at, _)| at == offset)
                || (inferred.iter()).any(|i| i.offset() == offset && !i.cuts_all())
        };
        let bounds: Vec<Inferred> = counted.bounds_of(global, &taken).collect();
        // Cut before the bounds are put: a buffer may hold both (`info[0]` and `info[i]`).
        let cells = inferred.iter().any(|i| matches!(i, Inferred::Bits { .. }));
        let storage = matches!(
            binding.access,
            Access::StorageRead | Access::StorageReadWrite
        );
        if storage && !cells && holds_integers(binding) {
            r.inferred.extend(counted.counts_of(global).map(|mut c| {
                // Where `--buffer` gave the other end of the ranges, the ends are counts of
                // their own, and the starts ascend as a range's do.
                if let Inferred::Counts { steps, .. } = &mut c {
                    match steps {
                        fill::Steps::EndsOf { starts: other, .. } if given.contains(&&**other) => {
                            *steps = fill::Steps::Cut;
                        }
                        fill::Steps::StartsOf { ends: other } if given.contains(&&**other) => {
                            *steps = fill::Steps::Ascending;
                        }
                        _ => {}
                    }
                }
                c
            }));
        }
        // A bound past the end of the buffer's default length is not there to set.
        let bytes = binding.size.bytes(r.len_or(invocations));
        r.inferred.extend(bounds.into_iter().filter(|b| match *b {
            Inferred::Bound { offset, scalar, .. } => offset + u64::from(scalar.width) <= bytes,
            _ => true,
        }));
    }
    counted.texels
}

/// Whether `binding` holds an integer scalar (one element of a runtime-sized array is enough).
fn holds_integers(binding: &Binding) -> bool {
    let mut integer = |_, s: naga::Scalar| match s.kind {
        ScalarKind::Uint | ScalarKind::Sint => std::ops::ControlFlow::Break(()),
        _ => std::ops::ControlFlow::Continue(()),
    };
    binding.shape.for_each_scalar(0, 1, &mut integer).is_break()
}

/// How one use of a loaded value treats it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Use {
    /// Compared (`==` when `equal`, else `!=`) with the integer `with`; `taken0` and `taken1`:
    /// whether an `if` on the comparison, where there is one, sends every lane out of the
    /// function (a `return` on the side taken) when the value is 0, or 1.
    Compared {
        equal: bool,
        with: i64,
        exits: [bool; 2],
    },
    /// Anything else: arithmetic, an ordering, a store, an argument.
    Other,
}

/// Every use of a buffer's loads found in the kernel: per scalar at a constant place (a
/// uniform's field, by byte offset, with its path), and for elements at indices that vary.
#[derive(Default)]
struct Uses {
    fields: HashMap<u64, (String, Vec<(Use, u32)>)>,
    /// Per field, the textures and dimensions whose coordinate it bounds (`gid.x <
    /// params.width` where `gid.xy` is a texture's coordinate), with the line.
    bounds: HashMap<u64, Vec<(String, u32, bool, u32)>>,
    elements: Vec<(Use, u32)>,
}

impl Uses {
    /// The loads of `global` in `function` and what is done with each.
    fn read(
        &mut self,
        module: &Module,
        function: &Function,
        global: Handle<naga::GlobalVariable>,
        lines: &SourceMap<'_>,
    ) {
        let ex = &function.expressions;
        let users = users_of(function);
        let coordinates = coordinates(module, function);
        for (h, e) in ex.iter() {
            let Expression::Load { pointer } = *e else {
                continue;
            };
            let Some(steps) = steps_from(ex, pointer, global) else {
                continue;
            };
            let ty = module.global_variables[global].ty;
            let uses: Vec<(Use, u32)> = (users.get(&h).into_iter().flatten())
                .map(|&(user, in_statement)| {
                    let how = if in_statement {
                        Use::Other
                    } else {
                        use_of(function, h, user)
                    };
                    let line = lines.span_line(ex.get_span(user)).unwrap_or(0);
                    (how, line)
                })
                .collect();
            if steps.iter().any(|s| matches!(s, Step::Dynamic(_))) {
                let scalar_element = element_is_integer(module, ty);
                if scalar_element {
                    self.elements.extend(uses);
                }
                continue;
            }
            if let Some((path, offset, scalar)) = place_of(module, ty, &steps)
                && matches!(scalar.kind, ScalarKind::Uint | ScalarKind::Sint)
            {
                let bounds = bounded(function, &users, h, &coordinates);
                let at = |user| lines.span_line(ex.get_span(user)).unwrap_or(0);
                self.bounds.entry(offset).or_default().extend(
                    bounds
                        .into_iter()
                        .map(|(t, d, a, user)| (t, d, a, at(user))),
                );
                let entry = self
                    .fields
                    .entry(offset)
                    .or_insert_with(|| (path, Vec::new()));
                entry.1.extend(uses);
            }
        }
    }

    /// The fields used only as flags, each with the value that keeps the invocations in:
    /// 0, or 1 where an `if` on it sends every lane out when it is 0 and not when it is 1.
    fn flags(&self) -> Vec<Inferred> {
        let mut out: Vec<Inferred> = (self.fields.iter())
            .filter_map(|(&offset, (path, uses))| {
                let flag = !uses.is_empty()
                    && uses
                        .iter()
                        .all(|(u, _)| matches!(u, Use::Compared { with: 0 | 1, .. }));
                if !flag {
                    return None;
                }
                let exits = |v: usize| {
                    uses.iter()
                        .any(|(u, _)| matches!(u, Use::Compared { exits, .. } if exits[v]))
                };
                let value = u64::from(exits(0) && !exits(1));
                let line = uses.iter().map(|&(_, l)| l).min().unwrap_or(0);
                Some(Inferred::Flag {
                    offset,
                    value,
                    path: path.clone(),
                    line,
                })
            })
            .collect();
        // A field that bounds one dimension of one texture's coordinates (and no flag) holds
        // that size.
        for (&offset, bounds) in &self.bounds {
            let Some(&(ref texture, dim, array, _)) = bounds.first() else {
                continue;
            };
            let agree = (bounds.iter()).all(|(t, d, a, _)| (t, *d, *a) == (texture, dim, array));
            let flag = out
                .iter()
                .any(|i| matches!(i, Inferred::Flag { offset: o, .. } if *o == offset));
            if agree && !flag {
                out.push(Inferred::Size {
                    offset,
                    path: self.fields[&offset].0.clone(),
                    line: bounds.iter().map(|&(.., l)| l).min().unwrap_or(0),
                    texture: texture.clone(),
                    dim,
                    array,
                    value: None,
                });
            }
        }
        out.sort_by_key(Inferred::offset);
        out
    }

    /// Cells: some element is compared with 1 and none with another constant than 0 or 1.
    fn cells(&self) -> Option<Inferred> {
        let with = |u: &Use| match *u {
            Use::Compared { with, .. } => Some(with),
            Use::Other => None,
        };
        let compared: Vec<(i64, u32)> = (self.elements.iter())
            .filter_map(|(u, line)| Some((with(u)?, *line)))
            .collect();
        let line = compared.iter().find(|(w, _)| *w == 1).map(|&(_, l)| l)?;
        compared
            .iter()
            .all(|(w, _)| matches!(w, 0 | 1))
            .then_some(Inferred::Bits { line })
    }
}

/// The steps from `global` to what `pointer` points at, where it points into `global`.
fn steps_from(
    ex: &naga::Arena<Expression>,
    mut pointer: Handle<Expression>,
    global: Handle<naga::GlobalVariable>,
) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    loop {
        match ex[pointer] {
            Expression::AccessIndex { base, index } => {
                steps.push(Step::At(index));
                pointer = base;
            }
            Expression::Access { base, index } => {
                steps.push(Step::Dynamic(index));
                pointer = base;
            }
            Expression::GlobalVariable(g) if g == global => {
                steps.reverse();
                return Some(steps);
            }
            _ => return None,
        }
    }
}

/// Whether the buffer of type `ty` holds integers in its (runtime-sized or fixed) array.
fn element_is_integer(module: &Module, ty: Handle<naga::Type>) -> bool {
    let mut ty = ty;
    loop {
        match module.types[ty].inner {
            naga::TypeInner::Array { base, .. } => ty = base,
            naga::TypeInner::Struct { ref members, .. } => match members.last() {
                Some(m) => ty = m.ty,
                None => return false,
            },
            naga::TypeInner::Scalar(s) | naga::TypeInner::Atomic(s) => {
                return matches!(s.kind, ScalarKind::Uint | ScalarKind::Sint);
            }
            _ => return false,
        }
    }
}

/// Who uses each expression: the expressions computed from it (`false`) and the statements
/// that take it (`true`, keyed by the expression itself).
fn users_of(function: &Function) -> HashMap<Handle<Expression>, Vec<(Handle<Expression>, bool)>> {
    let mut users: HashMap<Handle<Expression>, Vec<(Handle<Expression>, bool)>> = HashMap::new();
    let mut ops = Vec::new();
    for (h, e) in function.expressions.iter() {
        ops.clear();
        operands(e, &mut ops);
        if let Expression::ImageSample { coordinate, .. }
        | Expression::ImageLoad { coordinate, .. } = *e
        {
            ops.push(coordinate);
        }
        for &o in &ops {
            users.entry(o).or_default().push((h, false));
        }
    }
    each_statement(&function.body, &mut |s| {
        let taken: Vec<Handle<Expression>> = match s {
            Statement::Store { value, .. } => vec![*value],
            Statement::Call { arguments, .. } => arguments.clone(),
            Statement::Return { value } => value.iter().copied().collect(),
            Statement::Switch { selector, .. } => vec![*selector],
            Statement::ImageStore {
                coordinate, value, ..
            } => vec![*coordinate, *value],
            Statement::Atomic { value, .. } => vec![*value],
            _ => Vec::new(),
        };
        for t in taken {
            users.entry(t).or_default().push((t, true));
        }
    });
    users
}

/// How `user` treats the loaded value `load`.
fn use_of(function: &Function, load: Handle<Expression>, user: Handle<Expression>) -> Use {
    let ex = &function.expressions;
    let (equal, with) = match ex[user] {
        Expression::Binary {
            op: op @ (BinaryOperator::Equal | BinaryOperator::NotEqual),
            left,
            right,
        } => {
            let other = if left == load { right } else { left };
            match int_literal(&ex[other]) {
                Some(k) => (op == BinaryOperator::Equal, k),
                None => return Use::Other,
            }
        }
        Expression::As {
            kind: ScalarKind::Bool,
            ..
        } => (false, 0),
        _ => return Use::Other,
    };
    let taken = |v: i64| (v == with) == equal;
    let exits = [0, 1].map(|v| if_exits(&function.body, user, taken(v)));
    Use::Compared { equal, with, exits }
}

/// Whether an `if` on `condition` in `block` has a `return` among the first statements of the
/// side `taken` picks.
fn if_exits(block: &Block, condition: Handle<Expression>, taken: bool) -> bool {
    let mut exits = false;
    each_statement(block, &mut |s| {
        if let Statement::If {
            condition: c,
            accept,
            reject,
        } = s
            && *c == condition
        {
            let side = if taken { accept } else { reject };
            exits |= side.iter().any(|s| matches!(s, Statement::Return { .. }));
        }
    });
    exits
}

/// The value of an integer literal.
fn int_literal(e: &Expression) -> Option<i64> {
    match *e {
        Expression::Literal(Literal::U32(v)) => Some(i64::from(v)),
        Expression::Literal(Literal::I32(v)) => Some(i64::from(v)),
        Expression::Literal(Literal::U64(v)) => i64::try_from(v).ok(),
        Expression::Literal(Literal::I64(v)) => Some(v),
        Expression::Literal(Literal::AbstractInt(v)) => Some(v),
        _ => None,
    }
}

/// The root a coordinate or a compared value is computed from: through conversions,
/// swizzles and component reads.
fn root(ex: &naga::Arena<Expression>, mut e: Handle<Expression>) -> Handle<Expression> {
    loop {
        match ex[e] {
            Expression::As { expr, .. } => e = expr,
            Expression::Swizzle { vector, .. } => e = vector,
            Expression::AccessIndex { base, .. } => e = base,
            _ => return e,
        }
    }
}

/// What a value addresses: a texture's coordinates (any component: the dimension is the
/// compared component's) or a runtime-sized array's elements (at component `component` of the
/// value, the index).
struct Addressed {
    root: Handle<Expression>,
    component: Option<u32>,
    name: String,
    array: bool,
}

/// Every texture coordinate and runtime-sized array index of `function`, by the root they are
/// computed from.
fn coordinates(module: &Module, function: &Function) -> Vec<Addressed> {
    let ex = &function.expressions;
    let name = |image: Handle<Expression>| match ex[image] {
        Expression::GlobalVariable(g) => module.global_variables[g].name.clone(),
        _ => None,
    };
    let texture = |coordinate, image| {
        Some(Addressed {
            root: root(ex, coordinate),
            component: None,
            name: name(image)?,
            array: false,
        })
    };
    let mut out: Vec<Addressed> = (ex.iter())
        .filter_map(|(_, e)| match *e {
            Expression::ImageLoad {
                image, coordinate, ..
            } => texture(coordinate, image),
            Expression::Access { base, index } => {
                let array = runtime_array(module, ex, base)?;
                let mut i = index;
                while let Expression::As { expr, .. } = ex[i] {
                    i = expr;
                }
                let Expression::AccessIndex { base: b, index: k } = ex[i] else {
                    return None;
                };
                Some(Addressed {
                    root: root(ex, b),
                    component: Some(k),
                    name: array,
                    array: true,
                })
            }
            _ => None,
        })
        .collect();
    each_statement(&function.body, &mut |s| {
        if let Statement::ImageStore {
            image, coordinate, ..
        } = *s
        {
            out.extend(texture(coordinate, image));
        }
    });
    out
}

/// The name of the storage buffer whose runtime-sized array `base` points at.
fn runtime_array(
    module: &Module,
    ex: &naga::Arena<Expression>,
    mut base: Handle<Expression>,
) -> Option<String> {
    loop {
        match ex[base] {
            Expression::AccessIndex { base: b, .. } => base = b,
            Expression::GlobalVariable(g) => {
                let var = &module.global_variables[g];
                let runtime = |ty: Handle<naga::Type>| {
                    matches!(
                        module.types[ty].inner,
                        naga::TypeInner::Array {
                            size: naga::ArraySize::Dynamic,
                            ..
                        }
                    )
                };
                let sized = match module.types[var.ty].inner {
                    naga::TypeInner::Struct { ref members, .. } => {
                        members.last().is_some_and(|m| runtime(m.ty))
                    }
                    _ => runtime(var.ty),
                };
                return (matches!(var.space, naga::AddressSpace::Storage { .. }) && sized)
                    .then(|| var.name.clone())
                    .flatten();
            }
            _ => return None,
        }
    }
}

/// The textures and dimensions whose coordinate the loaded value `load` bounds: it (or its
/// conversion) is ordered against component `k` of a value a texture's coordinate is made
/// of. Each with the comparison.
fn bounded(
    function: &Function,
    users: &HashMap<Handle<Expression>, Vec<(Handle<Expression>, bool)>>,
    load: Handle<Expression>,
    coordinates: &[Addressed],
) -> Vec<(String, u32, bool, Handle<Expression>)> {
    let ex = &function.expressions;
    let direct = |h: Handle<Expression>| {
        (users.get(&h).into_iter().flatten())
            .filter(|&&(_, statement)| !statement)
            .map(|&(u, _)| u)
            .collect::<Vec<_>>()
    };
    let mut compared: Vec<(Handle<Expression>, Handle<Expression>)> = Vec::new();
    for user in direct(load) {
        match ex[user] {
            Expression::As { .. } => compared.extend(direct(user).into_iter().map(|u| (user, u))),
            _ => compared.push((load, user)),
        }
    }
    let mut out = Vec::new();
    for (value, user) in compared {
        let Expression::Binary { op, left, right } = ex[user] else {
            continue;
        };
        if !matches!(
            op,
            BinaryOperator::Less
                | BinaryOperator::LessEqual
                | BinaryOperator::Greater
                | BinaryOperator::GreaterEqual
        ) {
            continue;
        }
        let other = if left == value { right } else { left };
        let mut e = other;
        while let Expression::As { expr, .. } = ex[e] {
            e = expr;
        }
        let Expression::AccessIndex { base, index } = ex[e] else {
            continue;
        };
        let r = root(ex, base);
        for a in coordinates {
            if a.root == r && index < 3 && a.component.is_none_or(|c| c == index) {
                let dim = if a.array { 0 } else { index };
                out.push((a.name.clone(), dim, a.array, user));
            }
        }
    }
    out
}
