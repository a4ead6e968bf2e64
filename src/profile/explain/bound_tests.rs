//! The bound trace on small kernels: each source a loop's bound can come from.

use super::{Source, loop_bound};
use crate::shaders::check_wgsl;

const HEAD: &str = "\
struct Block { first: u32, n: u32, pad0: u32, pad1: u32 }
struct Info { scale: f32, @align(16) blocks: array<Block, 4>, dims: vec2<u32> }
@group(0) @binding(0) var<uniform> info: Info;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
const LIMIT: u32 = 5000000u;
";

/// The 1-based line of `src` that holds `mark`.
fn marked(src: &str, mark: &str) -> u32 {
    (1..)
        .zip(src.lines())
        .find(|(_, l)| l.contains(mark))
        .map(|(n, _)| n)
        .unwrap_or_else(|| panic!("no `{mark}` line"))
}

/// The bound of the loop on the line marked `// loop` in `body` (the entry point's body).
fn bound_in(body: &str) -> Option<(String, Source)> {
    let src = format!(
        "{HEAD}@compute @workgroup_size(64)\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n{body}\n}}\n"
    );
    let module = check_wgsl("k.wgsl", &src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let line = marked(&src, "// loop");
    let ep = &module.entry_points[0];
    loop_bound(&module, &ep.function, true, &src, line).map(|b| (b.text, b.source))
}

fn scalar(source: &Source) -> (&str, u64, bool) {
    match source {
        Source::Scalar {
            path,
            offset,
            computed,
            ..
        } => (path.as_str(), *offset, *computed),
        other => panic!("not a buffer scalar: {other:?}"),
    }
}

#[test]
fn a_member_inside_an_array_of_structs_has_its_path_and_offset() {
    // Block takes 16 bytes; `blocks` is aligned to 16, after `scale` at 0; `dims` follows at
    // 16 + 4 * 16 = 80.
    let (text, source) =
        bound_in("for (var i = 0u; i < info.blocks[2].n; i++) { // loop\n data[i] = i;\n}")
            .expect("a bound");
    assert_eq!(text, "info.blocks[2].n");
    assert_eq!(
        scalar(&source),
        ("info.blocks[2].n", 16 + 2 * 16 + 4, false)
    );
}

#[test]
fn a_var_assigned_once_and_arithmetic_are_followed() {
    let (text, source) = bound_in(
        "var n = info.dims.y;\n let m = n * 2u;\n var i = 0u;\n\
         while (m > i) { // loop\n i += 1u;\n}\n data[0] = i;",
    )
    .expect("a bound");
    assert_eq!(text, "m");
    assert_eq!(scalar(&source), ("info.dims.y", 80 + 4, true));
}

/// The `paths` of the buffer scalars a bound reads, where it reads several inputs.
fn inputs(source: &Source) -> Vec<&str> {
    match source {
        Source::Inputs(inputs) => inputs.iter().map(|i| scalar(i).0).collect(),
        other => panic!("not several inputs: {other:?}"),
    }
}

#[test]
fn a_var_assigned_twice_is_followed_to_the_input_each_value_reads() {
    // A constant store adds no input: the bound is computed from the one it reads.
    let (_, source) = bound_in(
        "var n = info.blocks[0].first;\n if (gid.x > 3u) { n = 7u; }\n\
         for (var i = 0u; i < n; i++) { // loop\n data[i] = i;\n}",
    )
    .expect("a bound");
    assert_eq!(scalar(&source), ("info.blocks[0].first", 16, true));
    // A var that adds an input to itself reads both, each once.
    let (text, source) = bound_in(
        "var n = info.dims.x * 4u;\n if (gid.x > 3u) { n += info.dims.y - info.dims.x; }\n\
         for (var i = 0u; i < n; i++) { // loop\n data[i] = i;\n}",
    )
    .expect("a bound");
    assert_eq!(text, "n");
    assert_eq!(inputs(&source), ["info.dims.x", "info.dims.y"]);
}

#[test]
fn a_bound_computed_from_several_inputs_names_each() {
    let (text, source) = bound_in(
        "let count = info.dims.x * info.dims.y * info.blocks[3].n;\n\
         for (var i = 0u; i < count; i += 64u) { // loop\n data[i] = i;\n}",
    )
    .expect("a bound");
    assert_eq!(text, "count");
    assert_eq!(
        inputs(&source),
        ["info.dims.x", "info.dims.y", "info.blocks[3].n"]
    );
    // `min` and `select`'s values are followed; its condition picks, it does not bound.
    let (_, source) = bound_in(
        "for (var i = 0u; i < min(select(info.dims.x, info.dims.y, gid.x == 0u), \
         arrayLength(&data)); i++) { // loop\n data[i] = i;\n}",
    )
    .expect("a bound");
    let Source::Inputs(found) = &source else {
        panic!("{source:?}")
    };
    assert_eq!(found.len(), 3, "{found:?}");
    assert_eq!(scalar(&found[0]).0, "info.dims.x");
    assert_eq!(scalar(&found[1]).0, "info.dims.y");
    assert!(matches!(found[2], Source::Length { .. }), "{found:?}");
    // One input read twice is that input.
    let (_, source) = bound_in(
        "for (var i = 0u; i < info.dims.x * info.dims.x; i++) { // loop\n data[i] = i;\n}",
    )
    .expect("a bound");
    assert_eq!(scalar(&source), ("info.dims.x", 80, true));
}

#[test]
fn constants_lengths_and_elements_are_named() {
    let (text, source) =
        bound_in("for (var i = 0u; i < LIMIT; i++) { // loop\n data[i % 8u] += i;\n}").unwrap();
    assert_eq!((text.as_str(), source), ("LIMIT", Source::Constant));
    let (text, source) =
        bound_in("for (var i = 0u; i < arrayLength(&data); i++) { // loop\n data[i] = i;\n}")
            .unwrap();
    assert_eq!(text, "arrayLength(&data)");
    assert!(matches!(source, Source::Length { .. }), "{source:?}");
    let (_, source) = bound_in(
        "var i = 0u;\n loop { // loop\n if (i >= data[gid.x + 1u]) { break; }\n i += 1u;\n}",
    )
    .unwrap();
    assert!(
        matches!(&source, Source::Element { index, .. } if index == "gid.x + 1u"),
        "{source:?}"
    );
}

/// A part of a `var` the kernel stores whole (`range = ranges[t]`, then `range.y`) is that part
/// of what was stored; one written in part, or from a value the trace cannot split, is not.
#[test]
fn a_part_of_a_var_stored_whole_is_followed_to_what_was_stored() {
    let (_, source) = bound_in(
        "var b: Block;\n if (gid.x < 4u) { b = info.blocks[gid.x]; }\n \
         for (var i = 0u; i < b.n; i++) { // loop\n data[i] = i;\n}",
    )
    .unwrap();
    assert!(
        matches!(&source, Source::Element { index, .. } if index == "gid.x"),
        "{source:?}"
    );
    let (_, source) = bound_in(
        "var d = vec2<u32>();\n d = info.dims;\n \
         for (var i = 0u; i < d.y - d.x; i++) { // loop\n data[i] = i;\n}",
    )
    .unwrap();
    let Source::Inputs(inputs) = &source else {
        panic!("{source:?}")
    };
    let paths: Vec<_> = inputs.iter().map(|s| scalar(s).0).collect();
    assert_eq!(paths, ["info.dims.y", "info.dims.x"]);
    let (_, source) = bound_in(
        "var d = info.dims;\n d.x = gid.x;\n \
         for (var i = 0u; i < d.y; i++) { // loop\n data[i] = i;\n}",
    )
    .unwrap();
    assert!(
        matches!(&source, Source::Other(why) if why.contains("part of the variable `d`")),
        "a var written in part: {source:?}"
    );
}

/// A `let` above the loop read the `var` it is computed from once, so the loop's own stores to
/// that `var` do not make it the counter.
#[test]
fn a_let_above_the_loop_is_fixed_though_the_loop_changes_its_var() {
    let (text, source) = bound_in(
        "var left = info.blocks[1].n;\n let batches = (left + 63u) / 64u;\n \
         for (var b = 0u; b < batches; b++) { // loop\n data[b] = left;\n left -= min(left, 64u);\n}",
    )
    .unwrap();
    assert_eq!(text, "batches");
    assert_eq!(scalar(&source), ("info.blocks[1].n", 16 + 16 + 4, true));
    // Read in the loop, the same `var` is what the loop counts with.
    let both = bound_in(
        "var left = info.blocks[1].n;\n var b = 0u;\n \
         loop { // loop\n if (b >= left) { break; }\n left -= 1u;\n b += 1u;\n}",
    );
    assert_eq!(both, None, "both sides change in the loop: no bound");
}

/// A `min`, `max` or `clamp` with a constant on the side the loop runs towards is that
/// constant at most, whichever way the test is written; on the other side it bounds nothing.
#[test]
fn a_bound_clamped_by_a_constant_is_that_constant_at_most() {
    let clamped = |body: &str| match bound_in(body).map(|(_, source)| source) {
        Some(Source::Clamped { limit }) => Some(limit),
        _ => None,
    };
    let up = |test: &str| format!("for (var i = 0u; {test}; i++) {{ // loop\n data[i] = i;\n}}");
    assert_eq!(
        clamped(&up("i <= min(1u, info.dims.y - 1u)")).as_deref(),
        Some("1u")
    );
    assert_eq!(
        clamped(&up("min(info.dims.x, 8u) > i")).as_deref(),
        Some("8u")
    );
    assert_eq!(
        clamped(&up("i < clamp(info.dims.x, 0u, 16u)")).as_deref(),
        Some("16u")
    );
    let leaves = "var i = 0u;\n loop { // loop\n if (i >= min(8u, info.dims.x)) { break; }\n \
                  data[i] = i;\n i += 1u;\n}";
    assert_eq!(
        clamped(leaves).as_deref(),
        Some("8u"),
        "a test that leaves the loop"
    );
    let down = "for (var i = 100i; i > max(2i, i32(info.dims.x)); i--) { // loop\n \
                data[u32(i)] = 0u;\n}";
    assert_eq!(
        clamped(down).as_deref(),
        Some("2i"),
        "a loop that counts down"
    );
    // The constant on the far side: `max(4u, n)` can be any n, and stays an input.
    let (_, source) = bound_in(&up("i < max(4u, info.dims.x)")).unwrap();
    assert_eq!(scalar(&source), ("info.dims.x", 80, true));
    let down_min = "for (var i = 100i; i > min(2i, i32(info.dims.x)); i--) { // loop\n \
                    data[u32(i)] = 0u;\n}";
    assert_eq!(
        clamped(down_min),
        None,
        "a loop down to `min(2, n)` may go below 2"
    );
}

#[test]
fn a_test_on_two_changing_values_or_a_call_has_no_bound() {
    assert_eq!(
        bound_in(
            "var i = 0u;\n var j = 9u;\n while (i < j) { // loop\n i += 1u;\n j -= 1u;\n}\n \
             data[0] = i;"
        ),
        None
    );
    assert_eq!(
        bound_in("var i = 0u;\n loop { // loop\n i += 1u;\n if (i > 4u) { break; }\n}"),
        None,
        "the exit test is not the body's first statement"
    );
}

#[test]
fn a_helper_called_once_is_followed_to_the_argument_its_caller_passes() {
    let src = format!(
        "{HEAD}fn walk(n: u32) -> u32 {{\n var acc = 0u;\n\
         for (var i = 0u; i < n; i++) {{ // loop\n acc += i;\n }}\n return acc;\n}}\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{ data[gid.x] = walk(info.blocks[1].first); }}\n"
    );
    let module = check_wgsl("k.wgsl", &src).unwrap();
    let line = marked(&src, "// loop");
    let walk = module.functions.iter().next().unwrap().1;
    let bound = loop_bound(&module, walk, false, &src, line).expect("a bound");
    assert_eq!(bound.text, "n");
    assert_eq!(
        scalar(&bound.source),
        ("info.blocks[1].first", 16 + 16, false)
    );
}

/// A call made before the loop is the same at every trip: a bound indexed by its result is
/// traced to the element. A call the loop makes at each trip leaves the bound untraced.
#[test]
fn a_call_before_the_loop_does_not_vary_in_it() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
fn cell(x: u32) -> u32 { return x % 8u; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let c = cell(gid.x);
    for (var j = 0u; j < data[c]; j++) { // before
        data[j % 8u] += 1u;
    }
    for (var j = 0u; j < data[cell(j)]; j++) { // inside
        data[j % 8u] += 1u;
    }
}
";
    let module = check_wgsl("k.wgsl", src).unwrap();
    let line = |mark: &str| marked(src, mark);
    let function = &module.entry_points[0].function;
    let before = loop_bound(&module, function, true, src, line("// before")).expect("a bound");
    assert_eq!(before.text, "data[c]");
    assert!(
        matches!(&before.source, Source::Element { index, .. } if index == "c"),
        "{:?}",
        before.source
    );
    assert_eq!(
        loop_bound(&module, function, true, src, line("// inside")),
        None
    );
}

#[test]
fn a_helpers_result_is_followed_to_each_value_it_returns() {
    let src = format!(
        "{HEAD}fn len() -> u32 {{\n if (info.scale > 0.5) {{ return info.dims.x; }}\n return data[0];\n}}\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n let n = len();\n\
         let blocks = (n + 63u) / 64u;\n\
         for (var b = 0u; b < blocks; b++) {{ // loop\n data[b] = b;\n }}\n}}\n"
    );
    let module = check_wgsl("k.wgsl", &src).unwrap();
    let line = marked(&src, "// loop");
    let ep = &module.entry_points[0];
    let bound = loop_bound(&module, &ep.function, true, &src, line).expect("a bound");
    assert_eq!(inputs(&bound.source), ["info.dims.x", "data[0]"]);
}

#[test]
fn a_workgroup_range_loaded_uniformly_is_followed_to_the_buffer_it_was_stored_from() {
    let src = "\
@group(0) @binding(0) var<storage, read> offsets: array<u32>;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
var<workgroup> range_shared: vec2<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    range_shared = vec2<u32>(offsets[wg.x * 2u], offsets[wg.x * 2u + 1u]);
    let range = workgroupUniformLoad(&range_shared);
    for (var b = range.x; b < range.y; b += 64u) { // tiles
        let remaining = min(64u, range.y - b);
        for (var t = 0u; t < remaining; t++) { // loop
            data[t] = b;
        }
    }
}
";
    let module = check_wgsl("k.wgsl", src).unwrap();
    let ep = &module.entry_points[0];
    let bound_at = |mark| loop_bound(&module, &ep.function, true, src, marked(src, mark)).unwrap();
    // The tile loop's range, from the buffer through the workgroup variable (the store's
    // elements, both: the trace does not tell a vector's components apart there).
    let tiles = bound_at("// tiles");
    assert_eq!(tiles.text, "range.y");
    let Source::Inputs(found) = &tiles.source else {
        panic!("{:?}", tiles.source)
    };
    assert!(
        found.iter().all(|i| matches!(i, Source::Element { .. })),
        "{found:?}"
    );
    // The loop inside runs `min(64u, range.y - b)` trips: never more than 64.
    let inner = bound_at("// loop");
    assert_eq!(
        inner.source,
        Source::Clamped {
            limit: "64u".to_owned()
        }
    );
}

#[test]
fn a_helpers_parameter_that_several_calls_pass_is_followed_to_each_argument() {
    let src = format!(
        "{HEAD}fn walk(n: u32) -> u32 {{\n var acc = 0u;\n\
         for (var i = 0u; i < n * 2u + 1u; i++) {{ // loop\n acc += i;\n }}\n return acc;\n}}\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n\
         data[gid.x] = walk(info.blocks[1].first) + walk(info.dims.y) + walk(3u);\n}}\n"
    );
    let module = check_wgsl("k.wgsl", &src).unwrap();
    let walk = module.functions.iter().next().unwrap().1;
    let bound = loop_bound(&module, walk, false, &src, marked(&src, "// loop")).expect("a bound");
    assert_eq!(
        inputs(&bound.source),
        ["info.blocks[1].first", "info.dims.y"]
    );
}

/// A texel's channel, loaded from a texture at coordinates that vary, is that texture's.
#[test]
fn a_bound_read_from_a_texture_names_the_texel() {
    let src = "\
@group(0) @binding(0) var lengths: texture_storage_2d<r32uint, read>;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var n: u32 = textureLoad(lengths, id.xy).r;
    for (var i = 0u; i < n; i++) { // loop
        data[i] = i;
    }
}
";
    let module = check_wgsl("k.wgsl", src).unwrap_or_else(|e| panic!("{e}"));
    let line = marked(src, "// loop");
    let bound = loop_bound(&module, &module.entry_points[0].function, true, src, line);
    let source = bound.map(|b| b.source);
    assert!(
        matches!(&source, Some(Source::Texel { coordinate, .. }) if coordinate == "id.xy"),
        "{source:?}"
    );
}
