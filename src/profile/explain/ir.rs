//! Small reads of naga's IR for the cap message: which locals a block writes, what a local is
//! assigned, what an expression is computed from, a built-in's WGSL name, and the WGSL path and
//! byte offset of one scalar of a buffer's type.

use naga::{Block, Expression, Handle, Module, Scalar, Statement, TypeInner};

use crate::naga_walk::each_statement;
use crate::profile::kernel::COMPONENTS;

/// Every local variable a statement of `block` stores to or passes a pointer to.
pub(super) fn stored_locals(
    block: &Block,
    expressions: &naga::Arena<Expression>,
    out: &mut Vec<Handle<naga::LocalVariable>>,
) {
    each_statement(block, &mut |statement| match statement {
        Statement::Store { pointer, .. } => out.extend(local_root(expressions, *pointer)),
        Statement::Call { arguments, .. } => {
            out.extend(arguments.iter().filter_map(|&a| local_root(expressions, a)))
        }
        _ => {}
    });
}

/// Every expression a statement of `block` makes: a call's, an atomic's, a subgroup
/// operation's or a `workgroupUniformLoad`'s result.
pub(super) fn results_in(block: &Block, out: &mut Vec<Handle<Expression>>) {
    each_statement(block, &mut |statement| match *statement {
        Statement::Call { result, .. } | Statement::Atomic { result, .. } => out.extend(result),
        Statement::WorkGroupUniformLoad { result, .. }
        | Statement::SubgroupBallot { result, .. }
        | Statement::SubgroupGather { result, .. }
        | Statement::SubgroupCollectiveOperation { result, .. } => out.push(result),
        _ => {}
    });
}

/// Pushes to `out` the expressions `block` evaluates (its `Emit`s, nested blocks included): a
/// loop's body evaluates them at each trip, where one emitted before the loop holds one value.
pub(super) fn emitted_in(block: &Block, out: &mut Vec<Handle<Expression>>) {
    each_statement(block, &mut |statement| {
        if let Statement::Emit(range) = statement {
            out.extend(range.clone());
        }
    });
}

/// The local variable a pointer points into, if it is one.
pub(super) fn local_root(
    expressions: &naga::Arena<Expression>,
    pointer: Handle<Expression>,
) -> Option<Handle<naga::LocalVariable>> {
    match expressions[pointer_root(expressions, pointer)] {
        Expression::LocalVariable(v) => Some(v),
        _ => None,
    }
}

/// What a pointer's accesses start from: a variable, or whatever made the pointer.
pub(super) fn pointer_root(
    expressions: &naga::Arena<Expression>,
    mut pointer: Handle<Expression>,
) -> Handle<Expression> {
    while let Expression::AccessIndex { base, .. } | Expression::Access { base, .. } =
        expressions[pointer]
    {
        pointer = base;
    }
    pointer
}

/// One step from a variable to a part of it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Step {
    /// A member, an element or a component at a constant index.
    At(u32),
    /// An element at an index computed at run time.
    Dynamic(Handle<Expression>),
}

/// The WGSL path (`.count`, `[2].x`), byte offset and scalar type of the part of type `ty` that
/// `steps` reach, when it is one scalar.
pub(super) fn place_of(
    module: &Module,
    ty: Handle<naga::Type>,
    steps: &[Step],
) -> Option<(String, u64, Scalar)> {
    /// A type, or a vector or scalar inside a matrix or vector, which have no handle.
    enum At {
        Type(Handle<naga::Type>),
        Vector(naga::VectorSize, Scalar),
        Scalar(Scalar),
    }
    let mut at = At::Type(ty);
    let mut path = String::new();
    let mut offset = 0u64;
    for step in steps {
        let Step::At(i) = *step else { return None };
        let inner = match at {
            At::Type(t) => module.types[t].inner.clone(),
            At::Vector(size, scalar) => TypeInner::Vector { size, scalar },
            At::Scalar(_) => return None,
        };
        at = match inner {
            TypeInner::Struct { ref members, .. } => {
                let m = members.get(i as usize)?;
                path.push('.');
                path.push_str(m.name.as_deref().unwrap_or("?"));
                offset += u64::from(m.offset);
                At::Type(m.ty)
            }
            TypeInner::Array { base, stride, .. } => {
                path.push_str(&format!("[{i}]"));
                offset += u64::from(i) * u64::from(stride);
                At::Type(base)
            }
            TypeInner::Vector { scalar, .. } => {
                path.push('.');
                path.push_str(COMPONENTS.get(i as usize)?);
                offset += u64::from(i) * u64::from(scalar.width);
                At::Scalar(scalar)
            }
            TypeInner::Matrix { rows, scalar, .. } => {
                path.push_str(&format!("[{i}]"));
                let stride = naga::proc::Alignment::from(rows) * u32::from(scalar.width);
                offset += u64::from(i) * u64::from(stride);
                At::Vector(rows, scalar)
            }
            _ => return None,
        };
    }
    let scalar = match at {
        At::Scalar(s) => s,
        At::Type(t) => match module.types[t].inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => s,
            _ => return None,
        },
        At::Vector(..) => return None,
    };
    Some((path, offset, scalar))
}

/// The integer scalars of a uniform buffer of type `ty` that its default fill sets (as
/// [`crate::profile::fill::count_scalars`] finds them in its shape): their WGSL paths from the
/// variable `name`, in layout order.
pub(super) fn count_fields(module: &Module, ty: Handle<naga::Type>, name: &str) -> Vec<String> {
    fn walk(module: &Module, ty: Handle<naga::Type>, path: String, out: &mut Vec<String>) {
        match module.types[ty].inner {
            TypeInner::Scalar(s)
                if matches!(s.kind, naga::ScalarKind::Uint | naga::ScalarKind::Sint) =>
            {
                out.push(path);
            }
            TypeInner::Vector { size, scalar }
                if matches!(scalar.kind, naga::ScalarKind::Uint | naga::ScalarKind::Sint) =>
            {
                let components = &["x", "y", "z", "w"][..size as usize];
                out.extend(components.iter().map(|c| format!("{path}.{c}")));
            }
            TypeInner::Struct { ref members, .. } => {
                for m in members {
                    let name = m.name.as_deref().unwrap_or("?");
                    walk(module, m.ty, format!("{path}.{name}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(module, ty, name.to_owned(), &mut out);
    out
}

/// Every value stored straight into `local` in `block` (nested blocks too); `other` is set
/// where the local is written some other way (through a part of it, or by a call).
pub(super) fn stores_to(
    block: &Block,
    expressions: &naga::Arena<Expression>,
    local: Handle<naga::LocalVariable>,
    values: &mut Vec<Handle<Expression>>,
    other: &mut bool,
) {
    let roots_at = |p: Handle<Expression>| local_root(expressions, p);
    each_statement(block, &mut |statement| match statement {
        Statement::Store { pointer, value } => match expressions[*pointer] {
            Expression::LocalVariable(v) if v == local => values.push(*value),
            _ if roots_at(*pointer) == Some(local) => *other = true,
            _ => {}
        },
        Statement::Call { arguments, .. }
            if arguments.iter().any(|&a| roots_at(a) == Some(local)) =>
        {
            *other = true;
        }
        _ => {}
    });
}

/// The expressions `e` is computed from.
pub(super) fn operands(e: &Expression, out: &mut Vec<Handle<Expression>>) {
    use Expression as E;
    match *e {
        E::Access { base, index } => out.extend([base, index]),
        E::AccessIndex { base, .. } => out.push(base),
        E::Splat { value, .. } => out.push(value),
        E::Swizzle { vector, .. } => out.push(vector),
        E::Compose { ref components, .. } => out.extend(components),
        E::Load { pointer } => out.push(pointer),
        E::Unary { expr, .. } | E::As { expr, .. } | E::Relational { argument: expr, .. } => {
            out.push(expr)
        }
        E::Binary { left, right, .. } => out.extend([left, right]),
        E::Select {
            condition,
            accept,
            reject,
        } => out.extend([condition, accept, reject]),
        E::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => out.extend([Some(arg), arg1, arg2, arg3].into_iter().flatten()),
        E::ArrayLength(p) => out.push(p),
        _ => {}
    }
}

/// WGSL's name of a built-in value.
pub(super) fn builtin_name(b: naga::BuiltIn) -> String {
    use naga::BuiltIn as B;
    match b {
        B::GlobalInvocationId => "global_invocation_id",
        B::LocalInvocationId => "local_invocation_id",
        B::LocalInvocationIndex => "local_invocation_index",
        B::WorkGroupId => "workgroup_id",
        B::NumWorkGroups => "num_workgroups",
        B::SubgroupInvocationId => "subgroup_invocation_id",
        B::SubgroupSize => "subgroup_size",
        B::SubgroupId => "subgroup_id",
        B::NumSubgroups => "num_subgroups",
        _ => return format!("{b:?}"),
    }
    .to_owned()
}

/// The arguments of every call of `function` in `block` (nested blocks too).
pub(super) fn calls_in(
    block: &Block,
    function: Handle<naga::Function>,
    out: &mut Vec<Vec<Handle<Expression>>>,
) {
    each_statement(block, &mut |statement| {
        if let Statement::Call {
            function: f,
            arguments,
            ..
        } = statement
            && *f == function
        {
            out.push(arguments.clone());
        }
    });
}
