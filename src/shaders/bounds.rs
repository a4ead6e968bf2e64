//! Index clamps for a backend whose shader compiler leaves indices unchecked.
//!
//! WGSL defines every out-of-range index as safe: a read gets some element (or zero) and a write
//! goes to some element or nowhere. Vulkan gets that from robust access and naga's SPIR-V bounds
//! policies, but wgpu's GL backend writes GLSL with every index unchecked (naga's GLSL writer
//! only bounds image loads), and llvmpipe's GL then reads or writes past a `var<workgroup>`
//! array, a local vector or a private array: the process dies with SIGSEGV. So, for GL, each
//! index into a value of known length becomes `min(u32(INDEX), LEN - 1u)`, one of the results
//! WGSL allows. Runtime-sized arrays live in storage buffers, which the GL driver bounds itself.
//!
//! The clamp is written into the text (inside the brackets of the access), so lines keep their
//! numbers and the module stays WGSL that any later pass reads as it reads the user's.

use naga::proc::index::{GuardedIndex, access_needs_check};
use naga::proc::{IndexableLength, IndexableLengthError};
use naga::{ArraySize, Expression, Function};

use super::wgsl::prepare_for_naga;

/// A bracketed index that needs a clamp: the byte range inside `[` `]` and the last index the
/// value has, as WGSL (`63u`, or `u32(N) - 1u` for an array sized by the override `N`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Clamp {
    start: usize,
    end: usize,
    last: String,
}

/// Why [`clamp_indices`] gave no clamped text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unclamped {
    /// naga cannot read or validate the source: compiling it as it is reports where.
    Invalid,
    /// An access that needs a clamp is not written `BASE[INDEX]` in the text (1-based line).
    NotBracketed { line: u32 },
}

/// `source` with every run-time index into a vector, matrix or fixed-size array clamped into
/// range, or why it cannot be: the caller then refuses the kernel on that backend rather than
/// run it unbounded.
pub fn clamp_indices(source: &str) -> Result<String, Unclamped> {
    let prepared = prepare_for_naga(source);
    let module = naga::front::wgsl::parse_str(&prepared).map_err(|_| Unclamped::Invalid)?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|_| Unclamped::Invalid)?;
    let functions = (module.functions.iter()).map(|(h, f)| (f, &info[h])).chain(
        (module.entry_points.iter().enumerate())
            .map(|(i, ep)| (&ep.function, info.get_entry_point(i))),
    );
    let mut clamps = Vec::new();
    for (function, function_info) in functions {
        clamps_of(&prepared, &module, function, function_info, &mut clamps)?;
    }
    clamps.sort();
    clamps.dedup();
    Ok(splice(&prepared, &clamps))
}

/// The clamps one function's accesses need, appended to `out`.
fn clamps_of(
    source: &str,
    module: &naga::Module,
    function: &Function,
    info: &naga::valid::FunctionInfo,
    out: &mut Vec<Clamp>,
) -> Result<(), Unclamped> {
    for (handle, expression) in function.expressions.iter() {
        let Expression::Access { base, index } = *expression else {
            continue;
        };
        let base_type = info[base].ty.inner_with(&module.types);
        let last = match base_type.indexable_length(module) {
            Ok(IndexableLength::Known(_)) => {
                let needs = access_needs_check(
                    base,
                    GuardedIndex::Expression(index),
                    module,
                    &function.expressions,
                    info,
                );
                let Some(IndexableLength::Known(length)) = needs else {
                    continue;
                };
                format!("{}u", length.saturating_sub(1))
            }
            // An array sized by an override: its value comes with the pipeline.
            Err(IndexableLengthError::Pending(ArraySize::Pending(o))) => {
                match &module.overrides[o].name {
                    Some(name) => format!("u32({name}) - 1u"),
                    None => continue,
                }
            }
            // Runtime-sized: a storage buffer, which the driver bounds.
            _ => continue,
        };
        let span = function.expressions.get_span(handle);
        let not_bracketed = || Unclamped::NotBracketed {
            line: span.location(source).line_number,
        };
        let range = span.to_range().ok_or_else(not_bracketed)?;
        let (start, end) = bracketed_index(source, range).ok_or_else(not_bracketed)?;
        out.push(Clamp { start, end, last });
    }
    Ok(())
}

/// The byte range of `INDEX` in an access `BASE[INDEX]` spanning `span`: the last `]` of the
/// span and the `[` that opens it.
fn bracketed_index(source: &str, span: std::ops::Range<usize>) -> Option<(usize, usize)> {
    let text = source.get(span.clone())?;
    let close = text.trim_end().strip_suffix(']')?.len();
    let mut depth = 0usize;
    for (at, byte) in text.as_bytes()[..close].iter().enumerate().rev() {
        match byte {
            b']' => depth += 1,
            b'[' if depth == 0 => return Some((span.start + at + 1, span.start + close)),
            b'[' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `source` with each clamp's index wrapped. Nested indices (`a[b[i]]`) nest their wrappers:
/// at one offset an outer range opens before an inner one and closes after it.
fn splice(source: &str, clamps: &[Clamp]) -> String {
    // (offset, closes before opens, outer first, text)
    let mut edits: Vec<(usize, u8, i64, String)> = Vec::new();
    for c in clamps {
        let width = (c.end - c.start) as i64;
        edits.push((c.start, 1, -width, "min(u32(".to_owned()));
        edits.push((c.end, 0, width, format!("), {})", c.last)));
    }
    edits.sort();
    let mut out = String::with_capacity(source.len() + edits.len() * 12);
    let mut at = 0;
    for (offset, _, _, text) in edits {
        out.push_str(&source[at..offset]);
        out.push_str(&text);
        at = offset;
    }
    out.push_str(&source[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clamped(source: &str) -> String {
        let out = clamp_indices(source).expect("clamps");
        crate::shaders::check_wgsl("clamped.wgsl", &out).expect("the clamped module validates");
        out
    }

    #[test]
    fn workgroup_local_and_vector_indices_are_clamped() {
        let source = "var<workgroup> tile: array<f32, 64>;\n\
            @group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
            @compute @workgroup_size(64)\n\
            fn main(@builtin(local_invocation_index) lid: u32) {\n\
            \x20   var v = vec3<f32>(0.0);\n\
            \x20   let i = lid * 7u;\n\
            \x20   v[lid % 5u] = tile[i];\n\
            \x20   out[lid] = v[2] + tile[3];\n\
            }\n";
        let out = clamped(source);
        assert!(out.contains("v[min(u32(lid % 5u), 2u)]"), "{out}");
        assert!(out.contains("tile[min(u32(i), 63u)]"), "{out}");
        // Constant in-range indices and runtime-sized storage arrays stay as written.
        assert!(out.contains("v[2] + tile[3]"), "{out}");
        assert!(out.contains("out[lid]"), "{out}");
        assert_eq!(out.lines().count(), source.lines().count());
    }

    #[test]
    fn nested_and_signed_indices_nest_their_clamps() {
        let source = "var<private> lut: array<i32, 4>;\n\
            var<private> table: array<f32, 8>;\n\
            @group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
            @compute @workgroup_size(8)\n\
            fn main(@builtin(local_invocation_index) lid: u32) {\n\
            \x20   out[lid] = table[lut[lid]];\n\
            }\n";
        let out = clamped(source);
        assert!(
            out.contains("table[min(u32(lut[min(u32(lid), 3u)]), 7u)]"),
            "{out}"
        );
    }

    #[test]
    fn an_override_sized_array_is_clamped_by_its_override() {
        let source = "override TILE: u32 = 64;\n\
            var<workgroup> tile: array<f32, TILE>;\n\
            @group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
            @compute @workgroup_size(64)\n\
            fn main(@builtin(local_invocation_index) lid: u32) {\n\
            \x20   out[lid] = tile[lid * 3u];\n\
            }\n";
        let out = clamped(source);
        assert!(
            out.contains("tile[min(u32(lid * 3u), u32(TILE) - 1u)]"),
            "{out}"
        );
    }

    #[test]
    fn a_module_naga_rejects_is_left_to_the_compile() {
        assert_eq!(clamp_indices("fn main( {"), Err(Unclamped::Invalid));
    }
}
