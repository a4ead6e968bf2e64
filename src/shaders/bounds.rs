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
//! One more rewrite for GL: naga's GLSL for `textureLoad(t, coords, level)` with a `u32` level
//! calls `textureSize(sampler2D, uint)`, which Mesa's GL rejects; the level becomes `i32(level)`.
//!
//! Each rewrite wraps a range of the text (inside the brackets of the access, around the level
//! argument), so lines keep their numbers and the module stays WGSL that any later pass reads
//! as it reads the user's.

use naga::proc::index::{GuardedIndex, access_needs_check};
use naga::proc::{IndexableLength, IndexableLengthError};
use naga::{ArraySize, Expression, Function};

use super::wgsl::prepare_for_naga;

/// A byte range of the text to wrap in `open` and `close`: a bracketed index in
/// `min(u32(`…`), LAST)` (LAST the value's last index, `63u`, or `u32(N) - 1u` for an array
/// sized by the override `N`), a texture load's level in `i32(`…`)`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Wrap {
    start: usize,
    end: usize,
    open: String,
    close: String,
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
    let module = super::parse_wgsl(&prepared).map_err(|_| Unclamped::Invalid)?;
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
    let mut wraps = Vec::new();
    for (function, info) in functions {
        let view = View {
            source: &prepared,
            module: &module,
            function,
            info,
        };
        clamps_of(&view, &mut wraps)?;
        level_casts(&view, &mut wraps);
    }
    wraps.sort();
    wraps.dedup();
    Ok(splice(&prepared, &wraps))
}

/// One function of the module, with its text and validation info.
struct View<'a> {
    source: &'a str,
    module: &'a naga::Module,
    function: &'a Function,
    info: &'a naga::valid::FunctionInfo,
}

/// The clamps one function's accesses need, appended to `out`.
fn clamps_of(view: &View, out: &mut Vec<Wrap>) -> Result<(), Unclamped> {
    let (source, module, function, info) = (view.source, view.module, view.function, view.info);
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
        out.push(Wrap {
            start,
            end,
            open: "min(u32(".to_owned(),
            close: format!("), {last})"),
        });
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

/// The `u32` level arguments of `textureLoad` calls, wrapped in `i32(`…`)`.
fn level_casts(view: &View, out: &mut Vec<Wrap>) {
    let (source, module, function, info) = (view.source, view.module, view.function, view.info);
    for (handle, expression) in function.expressions.iter() {
        let Expression::ImageLoad {
            array_index,
            level: Some(level),
            ..
        } = *expression
        else {
            continue;
        };
        let is_u32 = matches!(
            *info[level].ty.inner_with(&module.types),
            naga::TypeInner::Scalar(naga::Scalar::U32)
        );
        let Some(range) = function.expressions.get_span(handle).to_range() else {
            continue;
        };
        // textureLoad(t, coords, level) or textureLoad(t, coords, array_index, level).
        let position = if array_index.is_some() { 3 } else { 2 };
        if let Some((start, end)) = is_u32
            .then(|| call_argument(source, range, position))
            .flatten()
        {
            out.push(Wrap {
                start,
                end,
                open: "i32(".to_owned(),
                close: ")".to_owned(),
            });
        }
    }
}

/// The byte range of argument `position` (0-based, blanks trimmed) of the call whose name
/// spans `name` (naga's span of a builtin call covers its name only), split at the commas
/// outside its brackets; `None` for any other shape.
fn call_argument(
    source: &str,
    name: std::ops::Range<usize>,
    position: usize,
) -> Option<(usize, usize)> {
    let after = source.get(name.end..)?;
    let open = name.end + after.find('(')?;
    if !source[name.end..open].trim().is_empty() {
        return None;
    }
    let mut depth = 0usize;
    let mut starts = vec![open + 1];
    let mut close = None;
    for (at, byte) in source.bytes().enumerate().skip(open + 1) {
        match byte {
            b'(' | b'[' => depth += 1,
            b')' if depth == 0 => {
                close = Some(at);
                break;
            }
            b')' | b']' => depth = depth.checked_sub(1)?,
            b',' if depth == 0 => starts.push(at + 1),
            _ => {}
        }
    }
    let close = close?;
    let start = *starts.get(position)?;
    let end = starts.get(position + 1).map_or(close, |next| next - 1);
    let argument = &source[start..end];
    let lead = argument.len() - argument.trim_start().len();
    let trimmed = argument.trim();
    (!trimmed.is_empty()).then(|| (start + lead, start + lead + trimmed.len()))
}

/// `source` with each range wrapped. Nested ranges (`a[b[i]]`) nest their wrappers: at one
/// offset an outer range opens before an inner one and closes after it.
fn splice(source: &str, wraps: &[Wrap]) -> String {
    // (offset, closes before opens, outer first, text)
    let mut edits: Vec<(usize, u8, i64, String)> = Vec::new();
    for w in wraps {
        let width = (w.end - w.start) as i64;
        edits.push((w.start, 1, -width, w.open.clone()));
        edits.push((w.end, 0, width, w.close.clone()));
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
    fn nested_signed_and_override_sized_indices_are_clamped() {
        // (declarations, the statement, what the statement becomes)
        let cases = [
            (
                "var<private> lut: array<i32, 4>;\nvar<private> table: array<f32, 8>;",
                "out[lid] = table[lut[lid]];",
                "table[min(u32(lut[min(u32(lid), 3u)]), 7u)]",
            ),
            (
                "override TILE: u32 = 64;\nvar<workgroup> tile: array<f32, TILE>;",
                "out[lid] = tile[lid * 3u];",
                "tile[min(u32(lid * 3u), u32(TILE) - 1u)]",
            ),
        ];
        for (declarations, statement, expected) in cases {
            let source = format!(
                "{declarations}\n@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
                 @compute @workgroup_size(8)\n\
                 fn main(@builtin(local_invocation_index) lid: u32) {{ {statement} }}\n"
            );
            let out = clamped(&source);
            assert!(out.contains(expected), "{out}");
        }
    }

    #[test]
    fn a_u32_texture_load_level_becomes_an_i32() {
        let source = "@group(0) @binding(0) var src: texture_2d<f32>;\n\
            @group(0) @binding(1) var layers: texture_2d_array<f32>;\n\
            @group(0) @binding(2) var<storage, read_write> out: array<f32>;\n\
            @compute @workgroup_size(8)\n\
            fn main(@builtin(local_invocation_index) lid: u32) {\n\
            \x20   let level = lid / 8u;\n\
            \x20   out[lid] = textureLoad(src, vec2(lid, 0u), level).r\n\
            \x20       + textureLoad(layers, vec2(lid, 0u), 1u, level + 0u).g\n\
            \x20       + textureLoad(src, vec2(lid, 0u), 0).b;\n\
            }\n";
        let out = clamped(source);
        assert!(
            out.contains("textureLoad(src, vec2(lid, 0u), i32(level))"),
            "{out}"
        );
        assert!(out.contains("1u, i32(level + 0u))"), "{out}");
        assert!(
            out.contains("vec2(lid, 0u), 0).b"),
            "an i32 level stays\n{out}"
        );
    }

    #[test]
    fn a_module_naga_rejects_is_left_to_the_compile() {
        assert_eq!(clamp_indices("fn main( {"), Err(Unclamped::Invalid));
    }
}
