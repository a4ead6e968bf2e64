//! Loop bounds in the default fill: an integer scalar at a constant place that a loop counts
//! up to (`for (var i = 0u; i < info[0]; i++)`), which no other default sets (a storage
//! buffer's scalar, a uniform's vector component or array element), holds the dispatch's
//! invocations, as a uniform's integer fields do. A random `u32` there (around 2 billion) runs
//! the loop into the cap, and the profile is of a cut-short run. Found by the bound trace that
//! the cap message tells (`bound.rs`), on every loop the entry point reaches, before the run.

use naga::{GlobalVariable, Handle, ScalarKind, Statement};

use super::bound::{Source, loop_bound};
use crate::naga_walk::{each_spanned, reachable_functions};
use crate::profile::fill::{self, Inferred};
use crate::profile::kernel::Kernel;
use crate::source_map::SourceMap;

/// One scalar a loop counts up to, where it stands and the first loop's line.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Counted {
    /// The buffer's variable.
    pub global: Handle<GlobalVariable>,
    /// Its byte offset.
    pub offset: u64,
    /// Its type.
    pub scalar: naga::Scalar,
    /// Its WGSL path from the variable (`[0]`, `.dims.x`).
    pub path: String,
    /// The line of the first loop that counts up to it.
    pub line: u32,
}

/// The integer scalars at constant places that the loops of `kernel`'s entry point, and of the
/// functions it calls, count up to (their bound is the scalar, or computed from it, or from
/// several such scalars alone), in the order of the loops. Loops that count down to a floor or
/// wait for a value (`==`, `!=`) are left out: a larger value does not shorten them.
pub(super) fn counted_scalars(kernel: &Kernel) -> Vec<Counted> {
    let module = &kernel.module;
    let Some((entry, _)) = kernel.function(&kernel.interface.entry) else {
        return Vec::new();
    };
    let lines = SourceMap::new(&kernel.prepared);
    let functions = std::iter::once((entry, true)).chain(
        reachable_functions(module, entry)
            .into_iter()
            .map(|h| (&module.functions[h], false)),
    );
    let mut out: Vec<Counted> = Vec::new();
    for (function, is_entry) in functions {
        let mut loop_lines = Vec::new();
        each_spanned(&function.body, &mut |statement, span| {
            if matches!(statement, Statement::Loop { .. }) {
                loop_lines.extend(lines.span_line(span));
            }
        });
        loop_lines.dedup();
        for line in loop_lines {
            let Some(bound) = loop_bound(module, function, is_entry, &kernel.prepared, line) else {
                continue;
            };
            if bound.ceiling != Some(true) {
                continue;
            }
            for (global, path, offset, scalar) in scalars_of(&bound.source) {
                let name = module.global_variables[global]
                    .name
                    .as_deref()
                    .unwrap_or("");
                let integer = matches!(scalar.kind, ScalarKind::Uint | ScalarKind::Sint);
                let seen = out.iter().any(|c| c.global == global && c.offset == offset);
                if integer && !seen {
                    out.push(Counted {
                        global,
                        offset,
                        scalar,
                        path: path.strip_prefix(name).unwrap_or(path).to_owned(),
                        line,
                    });
                }
            }
        }
    }
    out
}

/// The buffer scalars a bound's value is made of, where it is made of them alone.
fn scalars_of(source: &Source) -> Vec<(Handle<GlobalVariable>, &str, u64, naga::Scalar)> {
    match source {
        Source::Inputs(several) => several.iter().map(scalar_of).collect::<Option<Vec<_>>>(),
        single => scalar_of(single).map(|s| vec![s]),
    }
    .unwrap_or_default()
}

/// The buffer scalar `source` is, if it is one.
fn scalar_of(source: &Source) -> Option<(Handle<GlobalVariable>, &str, u64, naga::Scalar)> {
    match *source {
        Source::Scalar {
            global,
            ref path,
            offset,
            scalar,
            ..
        } => Some((global, path.as_str(), offset, scalar)),
        _ => None,
    }
}

/// The [`Inferred::Bound`]s of the binding whose variable is `global`: each scalar of it in
/// `counted` that `taken` (the offsets another default sets already) leaves, holding
/// `invocations`.
pub(super) fn bounds_of(
    counted: &[Counted],
    global: Handle<GlobalVariable>,
    taken: &dyn Fn(u64) -> bool,
    invocations: u64,
) -> Vec<Inferred> {
    (counted.iter())
        .filter(|c| c.global == global && !taken(c.offset))
        .map(|c| Inferred::Bound {
            offset: c.offset,
            scalar: c.scalar,
            path: c.path.clone(),
            line: c.line,
            value: fill::held(invocations, c.scalar),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of loop bound, each loop marked with what the rule should do with it.
    const KERNEL: &str = "\
struct Params { n: u32, dims: vec2<u32>, limit: f32 }
struct Cfg { count: u32, seed: u32, runs: array<u32, 4> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> info: array<u32>;
@group(0) @binding(2) var<storage, read> cfg: Cfg;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

fn helper_reached(n: u32) -> f32 {
    var s = 0.0;
    for (var i = 0u; i < cfg.runs[2]; i++) { s += 1.0; } // yes: cfg.runs[2]
    return s;
}

fn helper_not_called() -> f32 {
    var s = 0.0;
    for (var i = 0u; i < cfg.runs[3]; i++) { s += 1.0; } // no: never called
    return s;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0.0;
    for (var i = 0u; i < info[1]; i++) { acc += 1.0; } // yes: info[1]
    for (var y = 0u; y < params.dims.y; y++) { acc += 2.0; } // yes: params.dims.y
    for (var i = 0u; i < cfg.count * 2u; i++) { acc += 3.0; } // yes: cfg.count, computed
    var k = 0u;
    while (k < params.n) { k += 1u; } // yes: params.n (the uniform rule sets it already)
    for (var i = 0u; i < info[gid.x]; i++) { acc += 4.0; } // no: an element that varies
    var d = 100u;
    while (d > info[5]) { d -= 1u; } // no: a floor
    var w = 0u;
    while (w != info[6]) { w += 1u; } // no: a wait for a value
    var f = 0.0;
    while (f < params.limit) { f += 1.0; } // no: a float
    for (var i = 0u; i < 8u; i++) { acc += 5.0; } // no: a constant
    for (var i = 0u; i < info[1]; i++) { acc += 6.0; } // no: info[1] again, named once
    acc += helper_reached(3u);
    out[gid.x] = acc;
}
";

    #[test]
    fn the_scalars_loops_count_up_to_are_found_and_no_others() {
        let kernel = Kernel::parse("k.wgsl", KERNEL, &[], None).expect("the kernel parses");
        let found: Vec<(String, u64, u32)> = counted_scalars(&kernel)
            .into_iter()
            .map(|c| {
                let name = kernel.module.global_variables[c.global].name.clone();
                (name.unwrap_or_default() + &c.path, c.offset, c.line)
            })
            .collect();
        let line = |mark: &str| {
            (1..)
                .zip(KERNEL.lines())
                .find(|(_, l)| l.contains(mark))
                .map(|(n, _)| n)
                .unwrap()
        };
        // `dims` is aligned to 8 after `n`; `runs` follows `count` and `seed`.
        let expected = [
            ("info[1]", 4, line("yes: info[1]")),
            ("params.dims.y", 12, line("yes: params.dims.y")),
            ("cfg.count", 0, line("yes: cfg.count")),
            ("params.n", 0, line("yes: params.n")),
            ("cfg.runs[2]", 16, line("yes: cfg.runs[2]")),
        ];
        let expected: Vec<(String, u64, u32)> = (expected.iter())
            .map(|&(p, o, l)| (p.to_owned(), o, l))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn a_bound_holds_the_invocations_held_below_its_type_and_skips_what_is_taken() {
        let kernel = Kernel::parse("k.wgsl", KERNEL, &[], None).unwrap();
        let counted = counted_scalars(&kernel);
        let params = counted[1].global;
        let none_taken = |_: u64| false;
        let bounds = bounds_of(&counted, params, &none_taken, 1 << 40);
        let values: Vec<(&str, u64)> = (bounds.iter())
            .map(|b| match b {
                Inferred::Bound { path, value, .. } => (path.as_str(), *value),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            values,
            [
                (".dims.y", u64::from(u32::MAX)),
                (".n", u64::from(u32::MAX))
            ]
        );
        let n_taken = |offset: u64| offset == 0;
        assert_eq!(bounds_of(&counted, params, &n_taken, 256).len(), 1);
    }
}
