//! A loop that hit the cap with no bound the trace in `bound.rs` finds, but an atomic read at
//! each trip: the shape of a spin-wait (a lock, a flag, a ticket), which ends only when another
//! invocation changes the atomic, and which WGSL does not promise will happen.

use naga::{
    AtomicFunction, Expression, Function, GlobalVariable, Handle, Module, Statement, TypeInner,
};

use super::ir::{local_root, operands, pointer_root, stored_locals};
use super::loops::find_loop;
use crate::naga_walk::each_spanned;
use crate::shaders::mask_comments;
use crate::source_map::SourceMap;

/// An atomic a loop reads at each trip.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Spin {
    /// The variable that holds the atomic (a buffer, or workgroup memory).
    pub global: Handle<GlobalVariable>,
    /// Its name in the source.
    pub name: String,
    /// The 1-based line that reads it.
    pub line: u32,
    /// That line's code, without its comments.
    pub code: String,
    /// Whether the read is a compare-exchange whose expected value is not a constant: a retry
    /// with the value last read (an atomic float add), not a wait for a lock's or a flag's
    /// state.
    pub retry: bool,
    /// The variable the loop steps at every trip that the read's index reads (`slot` in
    /// `table[slot]`): a probe that moves on at each trip (a hash table's), not a wait on one
    /// place.
    pub probe: Option<String>,
}

/// The first atomic the loop at `line` of `function` reads, by an atomic function or
/// `atomicLoad`, in its body or `continuing` (nested statements too, but not called functions).
/// `source` is the text naga parsed.
pub(super) fn spin_of(
    module: &Module,
    function: &Function,
    source: &str,
    line: u32,
) -> Option<Spin> {
    let lines = SourceMap::new(source);
    let (body, continuing, _) = find_loop(&function.body, &lines, line)?;
    let mut found = None;
    for block in [body, continuing] {
        each_spanned(block, &mut |statement, span| {
            if found.is_some() {
                return;
            }
            let read = match *statement {
                Statement::Atomic {
                    pointer, ref fun, ..
                } => {
                    let retry = match *fun {
                        AtomicFunction::Exchange {
                            compare: Some(expected),
                        } => !matches!(
                            function.expressions[expected],
                            Expression::Literal(_)
                                | Expression::Constant(_)
                                | Expression::ZeroValue(_)
                        ),
                        _ => false,
                    };
                    let at = atomic_global(module, function, pointer).zip(lines.span_line(span));
                    at.map(|(global, at)| (global, at, retry, pointer))
                }
                Statement::Emit(ref range) => range.clone().find_map(|h| {
                    let Expression::Load { pointer } = function.expressions[h] else {
                        return None;
                    };
                    let global = atomic_global(module, function, pointer)?;
                    let at = lines.span_line(function.expressions.get_span(h))?;
                    Some((global, at, false, pointer))
                }),
                _ => None,
            };
            found = read;
        });
    }
    let (global, at, retry, pointer) = found?;
    // Stepped at every trip: stored at the top of the body, or in `continuing`. A look-back
    // that moves only once the place it waits on is ready stays a wait.
    let mut stepped: Vec<_> = (body.iter())
        .filter_map(|statement| match *statement {
            Statement::Store { pointer, .. } => local_root(&function.expressions, pointer),
            _ => None,
        })
        .collect();
    stored_locals(continuing, &function.expressions, &mut stepped);
    let probe = index_local(function, pointer, &stepped)
        .and_then(|local| function.local_variables[local].name.clone());
    Some(Spin {
        global,
        name: module.global_variables[global]
            .name
            .clone()
            .unwrap_or_else(|| "an atomic".to_owned()),
        line: at,
        code: mask_comments(source)
            .lines()
            .nth(at as usize - 1)?
            .trim()
            .to_owned(),
        retry,
        probe,
    })
}

/// A local in `locals` that an index on the way to `pointer` reads (`table[slot]`).
fn index_local(
    function: &Function,
    mut pointer: Handle<Expression>,
    locals: &[Handle<naga::LocalVariable>],
) -> Option<Handle<naga::LocalVariable>> {
    let reads = |h: Handle<Expression>| {
        let mut pending = vec![h];
        while let Some(h) = pending.pop() {
            match function.expressions[h] {
                Expression::LocalVariable(v) if locals.contains(&v) => return Some(v),
                ref e => operands(e, &mut pending),
            }
        }
        None
    };
    loop {
        match function.expressions[pointer] {
            Expression::Access { base, index } => {
                if let Some(v) = reads(index) {
                    return Some(v);
                }
                pointer = base;
            }
            Expression::AccessIndex { base, .. } => pointer = base,
            _ => return None,
        }
    }
}

/// The variable `pointer` points into, where its type holds an atomic.
fn atomic_global(
    module: &Module,
    function: &Function,
    pointer: Handle<Expression>,
) -> Option<Handle<GlobalVariable>> {
    let Expression::GlobalVariable(global) =
        function.expressions[pointer_root(&function.expressions, pointer)]
    else {
        return None;
    };
    holds_atomic(module, module.global_variables[global].ty).then_some(global)
}

/// Whether a value of type `ty` is or contains an atomic.
fn holds_atomic(module: &Module, ty: Handle<naga::Type>) -> bool {
    match module.types[ty].inner {
        TypeInner::Atomic(_) => true,
        TypeInner::Array { base, .. } | TypeInner::BindingArray { base, .. } => {
            holds_atomic(module, base)
        }
        TypeInner::Struct { ref members, .. } => members.iter().any(|m| holds_atomic(module, m.ty)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(source: &str, line: u32) -> Option<Spin> {
        let module = naga::front::wgsl::parse_str(source).unwrap();
        let function = &module.entry_points[0].function;
        spin_of(&module, function, source, line)
    }

    /// A lock taken by compare-exchange, and a flag awaited by `atomicLoad` in a `while`: each
    /// loop's atomic and the line that reads it. A counted loop that touches no atomic has none.
    #[test]
    fn a_loop_that_reads_an_atomic_names_it_and_its_line() {
        let source = "\
@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var done = false;
    loop {
        if (done) { break; }
        let r = atomicCompareExchangeWeak(&lock, 0u, 1u);
        if (r.exchanged) { atomicStore(&lock, 0u); done = true; }
    }
    while (atomicLoad(&flags[gid.x]) == 0u) {}
    for (var i = 0u; i < 4u; i++) { out[i] = i; }
}
";
        let lock = spin(source, 8).expect("the lock's loop");
        assert_eq!((lock.name.as_str(), lock.line), ("lock", 10));
        assert_eq!(
            lock.code,
            "let r = atomicCompareExchangeWeak(&lock, 0u, 1u);"
        );
        assert!(!lock.retry, "a lock's expected value is a constant");
        let flag = spin(source, 13).expect("the flag's loop");
        assert_eq!((flag.name.as_str(), flag.line), ("flags", 13));
        assert_eq!(spin(source, 14), None);
    }

    /// A hash probe steps its slot at every trip: a probe. A look-back steps back only once
    /// the place it waits on is ready: a wait.
    #[test]
    fn a_read_at_an_index_stepped_every_trip_is_a_probe() {
        let source = "\
var<workgroup> table: array<atomic<u32>, 64>;

@compute @workgroup_size(8, 8)
fn main(@builtin(local_invocation_index) li: u32) {
    var slot = li;
    loop {
        let key = atomicLoad(&table[slot]);
        if (key == 0u) { break; }
        slot = (slot + 1u) & 63u;
    }
    var back = li;
    loop {
        let flag = atomicLoad(&table[back]);
        if (flag == 2u) { break; }
        if (flag == 1u) { back -= 1u; }
    }
}
";
        let probe = spin(source, 6).expect("the probe's loop");
        assert_eq!(probe.probe.as_deref(), Some("slot"));
        let wait = spin(source, 12).expect("the look-back's loop");
        assert_eq!(wait.probe, None, "{wait:?}");
    }

    /// An atomic float add by compare-exchange retries with the value it last read: a retry.
    #[test]
    fn a_compare_exchange_with_the_value_last_read_is_a_retry() {
        let source = "\
@group(0) @binding(0) var<storage, read_write> sums: array<atomic<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var old = atomicLoad(&sums[0]);
    loop {
        let r = atomicCompareExchangeWeak(&sums[0], old, bitcast<u32>(bitcast<f32>(old) + 1.0));
        if (r.exchanged) { break; }
        old = r.old_value;
    }
}
";
        let add = spin(source, 6).expect("the retry's loop");
        assert_eq!((add.name.as_str(), add.line, add.retry), ("sums", 7, true));
    }
}
