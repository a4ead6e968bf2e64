//! Loop bounds in the default fill. An integer scalar at a constant place that a loop counts
//! up to (`for (var i = 0u; i < info[0]; i++)`), which no other default sets (a storage
//! buffer's scalar, a uniform's array element), holds the dispatch's
//! invocations, as a uniform's integer fields do. A storage buffer whose elements, at indices
//! that vary, a loop counts up to (a cell's particle count) has its random integers cut to a
//! handful, 0 to 7, or made to ascend by as much where a loop runs over a range of two (a CSR
//! row). A random `u32` (around 2 billion) runs such a loop into the cap, and the profile is of
//! a cut-short run. Found by the bound trace that the cap message tells (`bound.rs`), on every
//! loop the entry point reaches, before the run.

use naga::{GlobalVariable, Handle, ScalarKind, Statement};

use super::bound::{LoopBound, Source, loop_bound};
use crate::naga_walk::{each_spanned, reachable_functions};
use crate::profile::fill::{self, Inferred, Steps};
use crate::profile::kernel::Kernel;
use crate::source_map::SourceMap;

/// The bits a buffer of loop bounds keeps of each random integer: 0 to 7 trips, a handful,
/// which differ from lane to lane as real counts do.
const COUNT_BITS: u32 = 3;

/// What the loops of an entry point count up to, each as the default that fills it, with the
/// buffer's variable, in the order of the loops: the scalars at constant places
/// ([`Inferred::Bound`], each once), and the buffers of elements at indices that vary
/// ([`Inferred::Counts`], each once).
#[derive(Debug, Default, PartialEq)]
pub(super) struct Counted {
    pub scalars: Vec<(Handle<GlobalVariable>, Inferred)>,
    pub elements: Vec<(Handle<GlobalVariable>, Inferred)>,
    /// The textures whose texels loops count up to, each once.
    pub texels: Vec<TexelBound>,
}

/// A texture whose texels a loop counts up to (`for (var i = 0u; i < textureLoad(spans,
/// id.xy).r; i++)`): left to the default fill, its random integers are cut to 0 to
/// 2^[`TexelBound::BITS`] − 1, as a buffer's counts are.
#[derive(Clone, Debug, PartialEq)]
pub struct TexelBound {
    /// The texture's name.
    pub texture: String,
    /// The line of the first loop that counts up to one.
    pub line: u32,
    /// The coordinates there, as the source writes them.
    pub coordinate: String,
}

impl TexelBound {
    /// The bits each random integer keeps: 0 to 7, as a buffer's counts.
    pub const BITS: u32 = COUNT_BITS;
    /// The largest integer that stays.
    pub const LARGEST: u64 = (1 << Self::BITS) - 1;
}

/// What the loops of `kernel`'s entry point, and of the functions it calls, count up to: their
/// bound is a scalar or an element, or computed from one, or from several such alone. A scalar
/// holds `invocations`. Loops that count down to a floor or wait for a value (`==`, `!=`) are
/// left out: a larger value does not end them sooner.
pub(super) fn counted(kernel: &Kernel, invocations: u64) -> Counted {
    let module = &kernel.module;
    let mut out = Counted::default();
    let Some((entry, _)) = kernel.function(&kernel.interface.entry) else {
        return out;
    };
    let lines = SourceMap::new(&kernel.prepared);
    let functions = std::iter::once((entry, true)).chain(
        reachable_functions(module, entry)
            .into_iter()
            .map(|h| (&module.functions[h], false)),
    );
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
            if bound.ceiling == Some(true) {
                out.add(module, &bound, line, invocations);
            }
        }
    }
    out.pair_up(module);
    out
}

/// The name of the variable `global`.
fn name_of(module: &naga::Module, global: Handle<GlobalVariable>) -> String {
    (module.global_variables[global].name.clone()).unwrap_or_default()
}

/// The `@group` and `@binding` of the variable `global` (0 and 0 where it has none).
fn slot_of(module: &naga::Module, global: Handle<GlobalVariable>) -> (u32, u32) {
    let binding = module.global_variables[global].binding.as_ref();
    binding.map_or((0, 0), |b| (b.group, b.binding))
}

/// Whether `global` is a bound array of integer scalars, one per element: the buffers whose
/// default fills take one random integer per element, so that two of them can share steps.
fn plain_integers(module: &naga::Module, global: Handle<GlobalVariable>) -> bool {
    let variable = &module.global_variables[global];
    let naga::TypeInner::Array { base, .. } = module.types[variable.ty].inner else {
        return false;
    };
    variable.binding.is_some()
        && matches!(
            module.types[base].inner,
            naga::TypeInner::Scalar(naga::Scalar {
                kind: ScalarKind::Uint | ScalarKind::Sint,
                ..
            })
        )
}

/// The inputs `source` is made of: itself, or each of several.
fn inputs_of(source: &Source) -> Vec<&Source> {
    match source {
        Source::Inputs(several) => several.iter().collect(),
        single => vec![single],
    }
}

impl Counted {
    /// Adds what `bound`, the bound of the loop at `line`, is made of, where it is made of
    /// buffer scalars, elements and texels alone.
    fn add(&mut self, module: &naga::Module, bound: &LoopBound, line: u32, invocations: u64) {
        let parts = inputs_of(&bound.source);
        let start = bound.start.as_ref().map(inputs_of).unwrap_or_default();
        let input = |s: &&Source| {
            matches!(
                s,
                Source::Scalar { .. } | Source::Element { .. } | Source::Texel { .. }
            )
        };
        if !parts.iter().all(input) {
            return;
        }
        // Elements of one buffer read at two indices, in the bound or where the counter
        // starts: a bound that is their difference (`n = end - start`), or a loop from one to
        // the other (`for (var j = row_ptr[i]; j < row_ptr[i + 1u]; j++)`), a range. Two
        // members of one element (`node.first + node.count`) are not.
        let indices_of = |global| {
            let mut indices: Vec<&str> = (parts.iter().chain(&start))
                .filter_map(|p| match **p {
                    Source::Element {
                        global: g,
                        ref index,
                    } if g == global => Some(index.as_str()),
                    _ => None,
                })
                .collect();
            indices.sort_unstable();
            indices.dedup();
            indices.len()
        };
        for part in &parts {
            if let Source::Texel {
                global,
                ref coordinate,
            } = **part
            {
                let texture = name_of(module, global);
                if !self.texels.iter().any(|t| t.texture == texture) {
                    self.texels.push(TexelBound {
                        texture,
                        line,
                        coordinate: coordinate.clone(),
                    });
                }
                continue;
            }
            if let Source::Element { global, ref index } = **part {
                // A counter that starts at an element of another buffer at the same index
                // (`for (var j = cell_start[c]; j < cell_end[c]; j++)`): that buffer starts the
                // ranges whose ends these are.
                let starts = start.iter().find_map(|s| match **s {
                    Source::Element {
                        global: g,
                        index: ref i,
                    } if g != global && i == index && plain_integers(module, g) => Some(g),
                    _ => None,
                });
                let steps = match starts {
                    _ if indices_of(global) > 1 => Steps::Ascending,
                    Some(starts) if plain_integers(module, global) => {
                        let ends = name_of(module, global);
                        self.count(starts, line, index, Steps::StartsOf { ends });
                        let (group, binding) = slot_of(module, starts);
                        Steps::EndsOf {
                            starts: name_of(module, starts),
                            group,
                            binding,
                        }
                    }
                    _ => Steps::Cut,
                };
                self.count(global, line, index, steps);
                continue;
            }
            let Source::Scalar {
                global,
                ref path,
                offset,
                scalar,
                ..
            } = **part
            else {
                continue;
            };
            let name = module.global_variables[global].name.as_deref();
            let integer = matches!(scalar.kind, ScalarKind::Uint | ScalarKind::Sint);
            let seen = (self.scalars.iter()).any(|(g, c)| *g == global && c.offset() == offset);
            if integer && !seen {
                let path = path.strip_prefix(name.unwrap_or("")).unwrap_or(path);
                self.scalars.push((
                    global,
                    Inferred::Bound {
                        offset,
                        scalar,
                        path: path.to_owned(),
                        line,
                        value: fill::held(invocations, scalar),
                    },
                ));
            }
        }
    }

    /// Records that the loop at `line` counts up to elements of `global` at `index`, held as
    /// `steps` says: the first loop's line and index stay, and a range of two of its own
    /// elements wins over another buffer's range, which wins over a count.
    fn count(&mut self, global: Handle<GlobalVariable>, line: u32, index: &str, steps: Steps) {
        let rank = |s: &Steps| match s {
            Steps::Cut => 0,
            Steps::StartsOf { .. } | Steps::EndsOf { .. } => 1,
            Steps::Ascending => 2,
        };
        match self.elements.iter_mut().find(|(g, _)| *g == global) {
            Some((_, Inferred::Counts { steps: held, .. })) if rank(&steps) > rank(held) => {
                *held = steps;
            }
            Some(_) => {}
            None => self.elements.push((
                global,
                Inferred::Counts {
                    line,
                    index: index.to_owned(),
                    bits: COUNT_BITS,
                    steps,
                },
            )),
        }
    }

    /// Where a buffer starts ranges that another no longer ends (a range of its own won
    /// there), its elements ascend as a range's do.
    fn pair_up(&mut self, module: &naga::Module) {
        let ends_of: Vec<(String, String)> = (self.elements.iter())
            .filter_map(|(g, c)| match c {
                Inferred::Counts {
                    steps: Steps::EndsOf { starts, .. },
                    ..
                } => Some((name_of(module, *g), starts.clone())),
                _ => None,
            })
            .collect();
        for (global, c) in &mut self.elements {
            if let Inferred::Counts { steps, .. } = c
                && let Steps::StartsOf { ends } = steps
                && !ends_of.contains(&(ends.clone(), name_of(module, *global)))
            {
                *steps = Steps::Ascending;
            }
        }
    }

    /// The [`Inferred::Bound`]s of the binding whose variable is `global`, but those at the
    /// offsets that `taken` says another default sets already.
    pub(super) fn bounds_of(
        &self,
        global: Handle<GlobalVariable>,
        taken: &dyn Fn(u64) -> bool,
    ) -> impl Iterator<Item = Inferred> {
        (self.scalars.iter())
            .filter(move |(g, c)| *g == global && !taken(c.offset()))
            .map(|(_, c)| c.clone())
    }

    /// The [`Inferred::Counts`] of the storage buffer whose variable is `global`, where a loop
    /// counts up to its elements.
    pub(super) fn counts_of(&self, global: Handle<GlobalVariable>) -> Option<Inferred> {
        (self.elements.iter())
            .find(|(g, _)| *g == global)
            .map(|(_, c)| c.clone())
    }
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
@group(0) @binding(4) var<storage, read> offsets: array<u32>;
@group(0) @binding(5) var<storage, read> ends: array<u32>;
@group(0) @binding(6) var<storage, read> row_ptr: array<u32>;
@group(0) @binding(7) var<storage, read> nodes: array<vec2<u32>>;
@group(0) @binding(8) var<storage, read> cell_start: array<u32>;
@group(1) @binding(2) var<storage, read> cell_end: array<u32>;

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
    for (var i = 0u; i < info[gid.x]; i++) { acc += 4.0; } // elements: info at gid.x
    let n = offsets[gid.x + 1u] - offsets[gid.x];
    for (var i = 0u; i < n; i++) { acc += 4.5; } // elements: offsets, a range
    for (var j = offsets[gid.x]; j < ends[gid.x]; j++) { acc += 4.7; } // elements: ends
    for (var j = row_ptr[gid.x]; j < row_ptr[gid.x + 1u]; j++) { acc += 4.8; } // row_ptr, a range
    let c = gid.x / 4u;
    let first = cell_start[c];
    for (var j = first; j < cell_end[c]; j++) { acc += 4.85; } // cell_start and cell_end
    for (var j = cell_start[gid.y]; j < cell_end[gid.x]; j++) { acc += 4.86; } // no: two indices
    let node = nodes[gid.x];
    for (var j = node.x; j < node.x + node.y; j++) { acc += 4.9; } // nodes: first and count
    var d = 100u;
    while (d > info[5]) { d -= 1u; } // no: a floor
    var w = 0u;
    while (w != info[6]) { w += 1u; } // no: a wait for a value
    var f = 0.0;
    while (f < params.limit) { f += 1.0; } // no: a float
    for (var i = 0u; i < 8u; i++) { acc += 5.0; } // no: a constant
    for (var i = 0u; i < info[1] + gid.x; i++) { acc += 5.5; } // no: an invocation id in it
    for (var i = 0u; i < info[1]; i++) { acc += 6.0; } // no: info[1] again, named once
    acc += helper_reached(3u);
    out[gid.x] = acc;
}
";

    /// The 1-based line of `KERNEL` that holds `mark`.
    fn line(mark: &str) -> u32 {
        (1..)
            .zip(KERNEL.lines())
            .find(|(_, l)| l.contains(mark))
            .map(|(n, _)| n)
            .unwrap()
    }

    #[test]
    fn the_scalars_loops_count_up_to_are_found_and_no_others() {
        let kernel = Kernel::parse("k.wgsl", KERNEL, &[], None).expect("the kernel parses");
        let name = |g: Handle<GlobalVariable>| kernel.module.global_variables[g].name.clone();
        let found: Vec<(String, u64, u32)> = (counted(&kernel, 256).scalars.into_iter())
            .map(|(g, c)| match c {
                Inferred::Bound {
                    path, offset, line, ..
                } => (name(g).unwrap_or_default() + &path, offset, line),
                other => panic!("{other:?}"),
            })
            .collect();
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
    fn the_buffers_whose_elements_loops_count_up_to_are_found_with_their_ranges() {
        let kernel = Kernel::parse("k.wgsl", KERNEL, &[], None).unwrap();
        let name = |g: Handle<GlobalVariable>| kernel.module.global_variables[g].name.clone();
        let found: Vec<(String, String, u32, Steps)> = (counted(&kernel, 256).elements)
            .into_iter()
            .map(|(g, c)| match c {
                Inferred::Counts {
                    index,
                    line,
                    steps,
                    bits: COUNT_BITS,
                } => (name(g).unwrap(), index, line, steps),
                other => panic!("{other:?}"),
            })
            .collect();
        let offsets = Steps::EndsOf {
            starts: "offsets".to_owned(),
            group: 0,
            binding: 4,
        };
        let cells = Steps::EndsOf {
            starts: "cell_start".to_owned(),
            group: 0,
            binding: 8,
        };
        let ends = Steps::StartsOf {
            ends: "cell_end".to_owned(),
        };
        let cell = line("cell_start and cell_end");
        let expected = [
            ("info", "gid.x", line("elements: info at gid.x"), Steps::Cut),
            (
                "offsets",
                "gid.x + 1u",
                line("elements: offsets, a range"),
                Steps::Ascending,
            ),
            ("ends", "gid.x", line("elements: ends"), offsets),
            (
                "row_ptr",
                "gid.x + 1u",
                line("row_ptr, a range"),
                Steps::Ascending,
            ),
            ("cell_start", "c", cell, ends),
            ("cell_end", "c", cell, cells),
            ("nodes", "gid.x", line("nodes: first and count"), Steps::Cut),
        ];
        let expected: Vec<(String, String, u32, Steps)> = (expected.into_iter())
            .map(|(n, i, l, r)| (n.to_owned(), i.to_owned(), l, r))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn a_bound_holds_the_invocations_held_below_its_type_and_skips_what_is_taken() {
        let kernel = Kernel::parse("k.wgsl", KERNEL, &[], None).unwrap();
        let counted = counted(&kernel, 1 << 40);
        let params = counted.scalars[1].0;
        let none_taken = |_: u64| false;
        let values: Vec<(String, u64)> = (counted.bounds_of(params, &none_taken))
            .map(|b| match b {
                Inferred::Bound { path, value, .. } => (path, value),
                other => panic!("{other:?}"),
            })
            .collect();
        let max = u64::from(u32::MAX);
        assert_eq!(
            values,
            [(".dims.y".to_owned(), max), (".n".to_owned(), max)]
        );
        let n_taken = |offset: u64| offset == 0;
        assert_eq!(counted.bounds_of(params, &n_taken).count(), 1);
    }
}
