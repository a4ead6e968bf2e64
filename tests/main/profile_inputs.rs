//! `divlab profile`'s inputs: the default a uniform buffer's integer fields get (the dispatch's
//! invocations), the message that names the input a capped loop's bound came from, and buffers
//! over the adapter's limits. Expected figures are derived here from the kernels and the
//! default, for any subgroup size of at least 3.

use std::time::{Duration, Instant};

use divlab::profile::fill::{self, BufferSpec, DEFAULT_SEED, Fill};
use divlab::profile::report::{LineProfile, Profile};
use divlab::profile::run::{Finished, Request};

use crate::util;
use crate::util::{divlab, line_of, path_in, run, temp_dir};

const UNIFORM_BOUND: &str = include_str!("../kernels/profile/uniform_bound.wgsl");
const ELEMENT_BOUND: &str = include_str!("../kernels/profile/element_bound.wgsl");
const COUNTED_ROWS: &str = include_str!("../kernels/profile/counted_rows.wgsl");

/// Profiles `source` (named `file`) on the default adapter with the request `configure` sets.
fn profiled(file: &str, source: &str, configure: impl FnOnce(&mut Request)) -> Finished {
    util::profiled_as(file, source, 1, configure)
}

/// The cap message of `source` run with `--buffer FILL` and a loop cap of 1000, which it must
/// hit.
fn capped_at_1000(file: &str, source: &str, fill: &str) -> String {
    let finished = profiled(file, source, |r| {
        r.buffers = vec![fill.parse().unwrap()];
        r.loop_cap = 1000;
    });
    finished.cap_hit.expect("the loop runs past a cap of 1000")
}

/// Asserts that `message` holds each of `parts`.
fn says_each(message: &str, parts: impl IntoIterator<Item = impl AsRef<str>>) {
    for part in parts {
        let part = part.as_ref();
        assert!(message.contains(part), "no `{part}` in: {message}");
    }
}

fn line<'a>(p: &'a Profile, source: &str, marker: &str) -> &'a LineProfile {
    util::line(p, line_of(source, marker))
}

/// The profile's subgroup size, checked against the device's.
fn subgroup_size(p: &Profile) -> u64 {
    let sg = p.subgroup_size.expect("lavapipe has subgroups");
    assert_eq!(sg, util::expected_subgroup_size());
    assert!(
        sg >= 3 && 64 % sg == 0,
        "the derivations need SG ≥ 3 dividing 64"
    );
    u64::from(sg)
}

/// `(executions, active lanes)` of a line.
fn counts(l: &LineProfile) -> (u64, Option<u64>) {
    (l.executions, l.active_lanes)
}

/// With no --buffer, `params.count` holds the dispatch's 128 invocations: no invocation leaves
/// at the guard, and each runs the loop 128 trips (the same for every lane, so each subgroup's
/// trips run with all its lanes). `add` runs for the pairs (i, j) in 0..128 with
/// (i + j) % 3 == 0: the residues of 0..128 mod 3 are 0, 1, 2 for 43, 43, 42 numbers, so
/// 43·43 + 43·42 + 42·43 = 5461 pairs; every subgroup of 3 or more consecutive lanes has one
/// such lane at every trip, so `add` runs once per subgroup and trip.
#[test]
fn a_loop_bounded_by_a_uniform_field_runs_to_its_end_with_the_default() {
    let finished = profiled("uniform_bound.wgsl", UNIFORM_BOUND, |r| {
        r.dispatch = [2, 1, 1];
    });
    assert!(finished.cap_hit.is_none(), "{:?}", finished.cap_hit);
    let p = &finished.profile;
    let sg = subgroup_size(p);
    let n = 128u64;
    let subgroups = n / sg;
    let pairs = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i + j) % 3 == 0))
        .filter(|&hit| hit)
        .count() as u64;
    assert_eq!(pairs, 43 * 43 + 43 * 42 + 42 * 43);
    let src = UNIFORM_BOUND;
    assert_eq!(counts(line(p, src, "// guard")), (subgroups, Some(n)));
    assert_eq!(line(p, src, "// out of range").executions, 0);
    assert_eq!(
        counts(line(p, src, "// every third")),
        (subgroups * n, Some(n * n))
    );
    assert_eq!(counts(line(p, src, "// add")), (subgroups * n, Some(pairs)));
    assert_eq!(counts(line(p, src, "// store")), (subgroups, Some(n)));
    assert!(!p.loop_cap_hit && p.timing.is_some());
    let note = p
        .notes
        .iter()
        .find(|note| note.contains("`params` (uniform) has no --buffer"))
        .unwrap_or_else(|| panic!("no note on the default: {:#?}", p.notes));
    assert!(
        note.contains("its integer field `params.count` holds 128, the dispatch's invocations")
            && note.contains("and its other scalars the random fill"),
        "{note}"
    );
}

/// A bare `var<uniform> n: u32` gets the default too (128 invocations, all pass the guard), and
/// a loop bounded by `arrayLength` runs the `--len` rows: 8 rows of 4 columns, the odd columns
/// of the 4 odd rows skipped, so `add` runs 8·4 − 4·2 = 24 times per invocation, with all
/// lanes (the skip depends on the row and column only).
#[test]
fn a_bare_uniform_count_gets_the_default_too() {
    let finished = profiled("counted_rows.wgsl", COUNTED_ROWS, |r| {
        r.dispatch = [4, 1, 1];
        r.lens = vec![fill::parse_len("rows=8").unwrap()];
    });
    let p = &finished.profile;
    let sg = subgroup_size(p);
    let n = 128u64;
    let subgroups = n / sg;
    let src = COUNTED_ROWS;
    assert_eq!(counts(line(p, src, "// guard")), (subgroups, Some(n)));
    assert_eq!(
        counts(line(p, src, "// add")),
        (24 * subgroups, Some(24 * n))
    );
    assert!(
        p.notes
            .iter()
            .any(|note| note.contains("`n` (uniform) has no --buffer: it holds 128")),
        "{:#?}",
        p.notes
    );
}

/// A grid's size in a uniform `vec3<u32>`, compared with a cell's coordinates: the default
/// gives each component the invocations, 128, as a scalar field gets, so every invocation's
/// cell (coordinates 0 to 6) is inside and the body runs with every lane; a random component,
/// cast to `i32`, is negative half the time and sent every invocation out before.
#[test]
fn a_uniform_integer_vector_holds_the_invocations_too() {
    let source = "\
struct Grid { cells: vec3<u32>, scale: f32 }
@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let cell = vec3<i32>(i32(gid.x % 7u), i32(gid.x % 5u), 1);
    if (cell.x >= i32(grid.cells.x) || cell.y >= i32(grid.cells.y) || cell.z >= i32(grid.cells.z)) {
        return; // outside
    }
    out[gid.x] = u32(cell.x) + grid.cells.x; // inside
}
";
    let finished = profiled("grid.wgsl", source, |r| r.dispatch = [2, 1, 1]);
    let p = &finished.profile;
    let subgroups = 128 / subgroup_size(p);
    assert_eq!(counts(line(p, source, "// outside")).0, 0);
    assert_eq!(counts(line(p, source, "// inside")), (subgroups, Some(128)));
    says_each(
        &p.notes.join("\n"),
        [
            "`grid` (uniform) has no --buffer: its integer fields `grid.cells.x`, `grid.cells.y` and `grid.cells.z` hold 128",
        ],
    );
}

/// `--buffer params=values:4000000000`: the loop runs into the cap, and the message names
/// `params.count`, its value, where it sits among the scalars, and what to pass.
#[test]
fn a_capped_loop_names_the_uniform_field_it_reads_its_bound_from() {
    let finished = profiled("uniform_bound.wgsl", UNIFORM_BOUND, |r| {
        r.dispatch = [2, 1, 1];
        r.buffers = vec!["params=values:4000000000".parse::<BufferSpec>().unwrap()];
    });
    let message = finished.cap_hit.expect("the loop hits the cap");
    let lp = line_of(UNIFORM_BOUND, "// loop");
    says_each(
        &message,
        [
            format!("uniform_bound.wgsl:{lp}: an invocation hit the loop cap in the loop here"),
            "It reads its bound from `params.count` (values fill: 4000000000)".to_owned(),
            "pass `--buffer params.count=N` (e.g. `--buffer params.count=128`, the dispatch's 128 \
         invocations), which sets that scalar alone, or `--buffer params=values:...` with \
         `params.count` as value 1 of 2 in layout order"
                .to_owned(),
        ],
    );
    assert_eq!(finished.profile.loop_cap_line, Some(lp));
}

/// `--buffer params=random`: the message gives the value the random fill put there, the one
/// the library's fill writes for the binding.
#[test]
fn a_capped_loop_gives_the_random_value_it_read() {
    let finished = profiled("uniform_bound.wgsl", UNIFORM_BOUND, |r| {
        r.dispatch = [2, 1, 1];
        r.buffers = vec!["params=random".parse::<BufferSpec>().unwrap()];
    });
    let module = divlab::shaders::check_wgsl("uniform_bound.wgsl", UNIFORM_BOUND).unwrap();
    let interface =
        divlab::profile::kernel::interface(&module, UNIFORM_BOUND, "uniform_bound.wgsl", None)
            .unwrap();
    let params = &interface.bindings[0];
    assert_eq!(params.name, "params");
    let bytes = fill::contents(params, params.size.bytes(0), &Fill::Random(DEFAULT_SEED)).unwrap();
    let count = u32::from_le_bytes(bytes[..4].try_into().unwrap());
    assert!(
        count > 65_535,
        "the seed gives a count of {count}, below the cap: pick another seed"
    );
    let message = finished.cap_hit.expect("the loop hits the cap");
    let part = format!("It reads its bound from `params.count` (random fill: {count})");
    assert!(message.contains(&part), "no `{part}` in: {message}");
}

/// With a random fill of an array (asked for: the default cuts a loop bound's elements to 0 to
/// 7), a loop bounded by an element loaded at the invocation's index runs into the cap, and
/// the message says the bound is such an element.
#[test]
fn a_capped_loop_bounded_by_a_loaded_element_says_so() {
    let finished = profiled("element_bound.wgsl", ELEMENT_BOUND, |r| {
        r.buffers = vec!["trips=random".parse().unwrap()];
    });
    let message = finished.cap_hit.expect("random trips hit the cap");
    let part = "It reads its bound from `n`, an element of `trips` loaded at the index `gid.x`, \
                which is not a constant";
    assert!(message.contains(part), "no `{part}` in: {message}");
    assert!(
        message.contains("(random fill)")
            && message.contains("pass `--buffer trips=values:...` (or `iota`)"),
        "{message}"
    );
}

/// A bound read from an invocation id or a constant gets its own sentence; a test the trace
/// cannot follow (a short-circuit `||`) gets the plain message.
#[test]
fn a_capped_loop_on_an_invocation_id_or_a_constant_says_so_and_a_compound_test_keeps_the_plain_message()
 {
    const ON_ID: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0u;
    for (var i = 0u; i < gid.x * 100000u; i++) { // loop
        acc += i;
    }
    out[gid.x] = acc;
}
";
    let message = profiled("on_id.wgsl", ON_ID, |_| {})
        .cap_hit
        .expect("100000·gid.x trips hit the cap");
    assert!(
        message.contains(
            "It reads its bound from `gid.x * 100000u`, an invocation id \
             (`global_invocation_id.x`), not from a buffer: the dispatch has 64 invocations"
        ),
        "{message}"
    );
    const TO_ZERO: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var n = gid.x + 1u;
    while (n != 0u) { // loop
        n += 2u;
    }
    out[gid.x] = n;
}
";
    let message = profiled("to_zero.wgsl", TO_ZERO, |r| r.loop_cap = 1000)
        .cap_hit
        .expect("n reaches 0 only after wrapping");
    assert!(
        message.contains("It compares `n`, which the loop changes, with `0u`, a constant"),
        "{message}"
    );
    const COMPOUND: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var x = gid.x;
    while (x != 7u || x == 7u) { // loop
        x += 1u;
    }
    out[gid.x] = x;
}
";
    let message = profiled("compound.wgsl", COMPOUND, |r| r.loop_cap = 1000)
        .cap_hit
        .expect("an endless loop hits the cap");
    let lp = line_of(COMPOUND, "// loop");
    assert!(
        message.starts_with(&format!(
            "compound.wgsl:{lp}: an invocation hit the loop cap in the loop here, after 1000 \
             loop iterations in all (the cap counts every loop of one invocation together); the \
             kernel may never end on this input. The profile below is of the cut-short run"
        )),
        "{message}"
    );
}

/// A bound the trace does not follow to an input (an atomic's result) is named once, not as
/// read "from" itself.
#[test]
fn a_capped_loop_on_a_bound_the_trace_cannot_follow_names_it_once() {
    const CALLED: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> handed_out: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    var x = li;
    let n = atomicAdd(&handed_out, 100000u);
    for (var i = 0u; i < n; i++) { // loop
        x += i;
    }
    out[li] = x;
}
";
    let message = profiled("called.wgsl", CALLED, |r| r.loop_cap = 1000)
        .cap_hit
        .expect("all lanes but the first run 100000 trips or more, past a cap of 1000");
    assert!(
        message.contains("It reads its bound `n`, which divlab does not follow to an input."),
        "{message}"
    );
}

/// A bound computed from several inputs (a grid's sides, and a `var` that grows by another
/// field in a branch) names each with the value the run gave it, and where it sits.
#[test]
fn a_capped_loop_on_a_bound_of_several_inputs_names_each_and_where_to_pass_them() {
    const GRID: &str = "\
struct Grid { width: u32, height: u32, extra: u32, scale: f32 }
@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    var cells = grid.width * grid.height;
    if (li == 0u) {
        cells += grid.extra;
    }
    var x = 0u;
    for (var i = li; i < cells; i += 64u) { // loop
        x += i; // body
    }
    out[li] = x;
}
";
    let message = capped_at_1000("grid.wgsl", GRID, "grid=values:3000,4000,7");
    let part = "It reads its bound `cells` from 3 inputs: `grid.width` (values fill: 3000), \
                `grid.height` (values fill: 4000) and `grid.extra` (values fill: 7); pass smaller \
                values there with `--buffer grid.width=N`, `--buffer grid.height=N` and \
                `--buffer grid.extra=N`, each setting one scalar, or with `--buffer \
                grid=values:...` (values 1, 2 and 3 of 4 in layout order).";
    assert!(message.contains(part), "no `{part}` in: {message}");
    // Taken, the advice ends the loop: 64 × 2 cells, and lane 0 one trip more for its extra
    // 64 (the default fill's invocations).
    let finished = profiled("grid.wgsl", GRID, |r| {
        r.buffers = ["grid.width=64", "grid.height=2"]
            .map(|s| s.parse().unwrap())
            .to_vec();
        r.loop_cap = 1000;
    });
    assert_eq!(finished.cap_hit, None);
    let body = util::line(&finished.profile, line_of(GRID, "// body"));
    assert_eq!(body.active_lanes, Some(64 * 2 + 1));
    assert_eq!(
        finished.profile.request.buffers,
        ["grid.width=64", "grid.height=2"]
    );
}

/// A loop of a constant 64 trips inside one over `shape.x` (a matmul's tile loop) runs into the
/// cap on the outer loop's trips: the message names the loop around it and its input, here
/// read through a helper's result and a vector's component.
#[test]
fn a_capped_loop_with_a_constant_bound_names_the_input_bounded_loop_around_it() {
    const TILED: &str = "\
struct Shape { shape: vec4<u32> }
@group(0) @binding(0) var<uniform> view: Shape;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

fn columns() -> u32 {
    return view.shape.x / 4u;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    let extent = vec2<u32>(columns(), 4u);
    var acc = 0u;
    for (var k = 0u; k < extent.x; k += 8u) { // outer
        for (var x = 0u; x < 64u; x++) { // inner
            acc += k + x;
        }
    }
    out[li] = acc;
}
";
    let message = capped_at_1000("tiled.wgsl", TILED, "view=values:4000000000");
    let inner = line_of(TILED, "// inner");
    let outer = line_of(TILED, "// outer");
    says_each(
        &message,
        [
            format!("tiled.wgsl:{inner}: an invocation hit the loop cap"),
            "It runs 64 trips at each entry (`x` steps from a constant to `64u`)".to_owned(),
            format!(
                "The loop around it at line {outer} reads its bound from `view.shape.x` through \
             `extent.x` (values fill: 4000000000)"
            ),
            "pass `--buffer view.shape.x=N`".to_owned(),
        ],
    );
}

/// A neighbour scan's loop over the cells beside each one runs at most three trips, however
/// many cells the grid has (`d <= min(1, ...)`): where the loop inside it, over a cell's
/// members, runs into the cap, the message names that loop's input alone.
#[test]
fn a_loop_around_whose_bound_a_constant_clamps_is_not_blamed() {
    const NEIGHBOURS: &str = "\
struct Grid { cells: i32 }
@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read> cell_end: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let cell = i32(gid.x % 64u);
    var near = 0u;
    for (var d = max(-1, -cell); d <= min(1, grid.cells - cell - 1); d++) { // beside
        let end = cell_end[u32(cell + d)];
        for (var j = 0u; j < end; j++) { // members
            near += j;
        }
    }
    out[gid.x] = near;
}
";
    let message = capped_at_1000("neighbours.wgsl", NEIGHBOURS, "cell_end=random:7");
    let members = line_of(NEIGHBOURS, "// members");
    assert!(
        message.contains(&format!(
            "neighbours.wgsl:{members}: an invocation hit the loop cap"
        )) && message.contains("It reads its bound from `end`, an element of `cell_end`"),
        "{message}"
    );
    assert!(!message.contains("The loop around it"), "{message}");
}

/// A tile renderer's batch loop: its bound is a `let` above it, computed from a `var` that the
/// loop lowers at each trip and that holds a part of a range loaded whole (`range.y -
/// range.x`). Where the fixed loop inside runs into the cap, the message names the range's
/// buffer as the batch loop's input, not the workgroup counter the batch loop bumps.
#[test]
fn a_batch_loop_over_a_loaded_range_is_named_around_a_fixed_loop() {
    const BATCHES: &str = "\
@group(0) @binding(0) var<storage, read> ranges: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> done: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    var range = vec2<u32>();
    var left = 0u;
    if wg.x < arrayLength(&ranges) {
        range = ranges[wg.x];
        if range.y > range.x {
            left = range.y - range.x;
        }
    }
    let batches = (left + 63u) / 64u;
    var acc = 0u;
    for (var b = 0u; b < batches; b++) { // batches
        atomicAdd(&done, 1u);
        let in_batch = min(left, 64u);
        for (var i = 0u; i < 64u; i++) { // points
            acc += i * b;
        }
        left -= in_batch;
    }
    out[wg.x * 64u + li] = acc;
}
";
    let message = capped_at_1000("batches.wgsl", BATCHES, "ranges=values:0,4000000000");
    let points = line_of(BATCHES, "// points");
    let batches = line_of(BATCHES, "// batches");
    says_each(
        &message,
        [
            format!("batches.wgsl:{points}: an invocation hit the loop cap"),
            format!(
                "The loop around it at line {batches} reads its bound from `batches`, an element \
             of `ranges` loaded at the index `wg.x`"
            ),
        ],
    );
    assert!(!message.contains("reads the atomic"), "{message}");
}

/// A span loop whose length each invocation reads from a texture (a pixel sort's spans).
const SPANS: &str = "\
@group(0) @binding(0) var spans: texture_2d<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let span = textureLoad(spans, id.xy, 0).r;
    var sum = 0u;
    for (var i = 0u; i < span; i++) { // span
        sum += i; // step
    }
    out[id.y * 8u + id.x] = sum;
}
";

/// With the random fill asked for by name (the default cuts such texels to a handful), the
/// span loop runs into the cap: the message names the texture and the option that fills it,
/// and with that option the kernel runs to its end.
#[test]
fn a_bound_read_from_a_texel_names_the_texture_to_fill() {
    let capped = profiled("spans.wgsl", SPANS, |r| {
        r.loop_cap = 1000;
        r.textures.add("texture spans=random").unwrap();
    });
    let message = capped
        .cap_hit
        .expect("random texels run past a cap of 1000");
    let span = line_of(SPANS, "// span");
    says_each(
        &message,
        [
            format!("spans.wgsl:{span}: an invocation hit the loop cap"),
            "It reads its bound from `span`, a texel of `spans` at `id.xy`".to_owned(),
            "pass `--texture spans=values:...` (or `zeros`) with smaller texels there".to_owned(),
        ],
    );
    let filled = profiled("spans.wgsl", SPANS, |r| {
        r.loop_cap = 1000;
        r.textures.add("--texture spans=values:3,1").unwrap();
    });
    assert_eq!(filled.cap_hit, None, "the advice ends the loops");
}

/// With no --texture, the random integers of a texture whose texels a loop counts up to are
/// cut to 0 to 7 (before, a random `u32` ran the loop into the cap): the GPU counts exactly
/// the trips the library's texels give, and the texture's note and input preview say so.
#[test]
fn a_texture_whose_texels_a_loop_counts_up_to_holds_a_handful_by_default() {
    use divlab::profile::fill::{Fill, TexelLayout, texels};
    use divlab::profile::kernel::Kernel;
    let kernel = Kernel::parse("spans.wgsl", SPANS, &[], None).unwrap();
    let layout = TexelLayout::of(wgpu::TextureFormat::Rgba32Uint).unwrap();
    let texture = &kernel.interface.textures[0];
    let bytes = texels(layout, [8, 8, 1], &Fill::default(), None, texture, Some(3)).unwrap();
    let reds: Vec<u64> = (bytes.chunks_exact(16))
        .map(|t| u64::from(u32::from_le_bytes(t[..4].try_into().unwrap())))
        .collect();
    assert!(reds.iter().all(|&n| n <= 7) && reds.iter().sum::<u64>() > 64);

    let finished = profiled("spans.wgsl", SPANS, |_| {});
    assert!(finished.cap_hit.is_none(), "{:?}", finished.cap_hit);
    let step = line(&finished.profile, SPANS, "// step");
    assert_eq!(step.active_lanes, Some(reds.iter().sum()));
    says_each(
        &finished.profile.notes.join("\n"),
        [format!(
            "as rgba32uint, 8×8, filled random:24301, its integers cut to 0 to 7 (the default, \
             as the loop at line {} counts up to its texels at `id.xy`",
            line_of(SPANS, "// span")
        )],
    );
    let preview = (finished.inputs.iter())
        .find(|i| i.label.starts_with("`spans`"))
        .expect("the texture among the inputs");
    assert_eq!(
        (preview.label.as_str(), preview.fill.as_str(), preview.bytes),
        (
            "`spans` (@group(0) @binding(0)) (texture)",
            "random:24301 (default; integers cut to 0..7: loop bounds), rgba32uint 8×8×1",
            8 * 8 * 16
        )
    );
}

/// A hash table's linear probe steps its slot at every trip, looking for its key or an empty
/// slot: on a random table it finds neither, and the message tells it as a probe, with the fill
/// that gives it empty slots, with which it ends.
#[test]
fn a_hash_probe_is_told_as_a_probe_not_a_wait() {
    const PROBE: &str = "\
@group(0) @binding(0) var<storage, read_write> keys: array<atomic<u32>, 64>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var slot = (gid.x * 2654435761u) & 63u;
    loop { // probe
        let found = atomicLoad(&keys[slot]);
        if (found == gid.x + 1u || found == 0u) {
            break;
        }
        slot = (slot + 1u) & 63u;
    }
    out[gid.x] = slot;
}
";
    let message = capped_at_1000("probe.wgsl", PROBE, "out=zeros");
    let probe = line_of(PROBE, "// probe");
    says_each(
        &message,
        [
            format!("probe.wgsl:{probe}: an invocation hit the loop cap"),
            "reads the atomic `keys` at an index the loop steps (`slot`, line".to_owned(),
            "a probe, which ends where it finds the entry it looks for".to_owned(),
            "pass `--buffer keys=...` (zeros, values:...) with the entries it looks for".to_owned(),
        ],
    );
    assert!(!message.contains("the wait may never end"), "{message}");
    let emptied = profiled("probe.wgsl", PROBE, |r| {
        r.buffers = vec!["keys=zeros".parse().unwrap()];
        r.loop_cap = 1000;
    });
    assert_eq!(emptied.cap_hit, None, "an empty table ends every probe");
}

/// A wait on a workgroup flag that no invocation sets: no fill reaches workgroup memory, so
/// the message asks for a bound in the kernel alone.
#[test]
fn a_wait_on_workgroup_memory_asks_for_a_bound_alone() {
    const WAIT: &str = "\
var<workgroup> ready: atomic<u32>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
    var tries = 0u;
    while (atomicLoad(&ready) == 0u) { // wait
        tries += 1u;
    }
    out[lid.y * 8u + lid.x] = tries;
}
";
    let message = capped_at_1000("wait.wgsl", WAIT, "out=zeros");
    let wait = line_of(WAIT, "// wait");
    says_each(&message, [
        format!("wait.wgsl:{wait}: an invocation hit the loop cap"),
        "reads the atomic `ready` at each trip".to_owned(),
        "`ready` is workgroup memory, zero when the workgroup starts, so no option changes it: \
         give the wait a bound in the kernel. The profile"
            .to_owned(),
    ]);
}

/// A look-back: a wait on another workgroup's flag (`while (ready == 0u)`), told as the wait
/// it is, not as a count towards `0u`; with a retry loop of a fixed number of tries (from the
/// subgroup size) inside it, where the tries run into the cap, the message says no option
/// changes them and names the wait around them.
#[test]
fn a_wait_for_a_flag_is_named_even_around_a_fixed_loop() {
    let look_back = |body: &str| {
        format!(
            "enable subgroups;
@group(0) @binding(0) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(subgroup_size) sg: u32) {{
    var ready = 0u;
    var seen = 0u;
    while (ready == 0u) {{ // wait
{body}
    }}
    out[li] = seen;
}}
"
        )
    };
    let spin = "has no bound divlab can trace, but reads the atomic `flags` at each trip";
    let alone = look_back(
        "        seen = atomicLoad(&flags[wg.x + 1u]);\n        ready = select(0u, 1u, seen == 7u);",
    );
    let message = capped_at_1000("wait.wgsl", &alone, "flags=zeros");
    let wait = line_of(&alone, "// wait");
    says_each(
        &message,
        [
            format!("wait.wgsl:{wait}: an invocation hit the loop cap"),
            format!("It {spin}"),
            "`flags` started as its zeros fill".to_owned(),
        ],
    );
    // At least 400 tries per wait, so that the cap of 1000 falls in the tries.
    let tries = look_back(
        "        for (var t = 0u; t < sg * 100u; t++) { // tries
            seen = atomicLoad(&flags[wg.x + 1u]);
            if (seen == 7u) {
                ready = 1u;
                break;
            }
        }",
    );
    let message = capped_at_1000("retry.wgsl", &tries, "flags=zeros");
    says_each(
        &message,
        [
            format!(
                "retry.wgsl:{}: an invocation hit the loop cap",
                line_of(&tries, "// tries")
            ),
            "It reads its bound from `sg * 100u`, the subgroup size (`subgroup_size`), which the \
         device fixes: no option changes this loop's trips"
                .to_owned(),
            format!("The loop around it at line {wait} {spin}"),
        ],
    );
}

/// The same in a helper: the loop around its call is named.
#[test]
fn a_capped_loop_in_a_helper_names_the_input_bounded_loop_around_its_call() {
    const HELPER: &str = "\
@group(0) @binding(0) var<uniform> n: u32;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

fn tile(k: u32) -> u32 {
    var acc = 0u;
    for (var x = 0u; x < 64u; x++) { // inner
        acc += k + x;
    }
    return acc;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    var acc = 0u;
    for (var k = 0u; k < n; k++) { // outer
        acc += tile(k);
    }
    out[li] = acc;
}
";
    let message = capped_at_1000("helper.wgsl", HELPER, "n=4000000000");
    let part = format!(
        "It runs 64 trips at each entry (`x` steps from a constant to `64u`), known before the \
         run, so the trips that reached the cap were those of other loops: around it, or before \
         it. The loop around its call at line {} reads its bound from `n` (set by --buffer: \
         4000000000)",
        line_of(HELPER, "// outer")
    );
    assert!(message.contains(&part), "no `{part}` in: {message}");
}

/// The limit a binding of `bytes` bytes runs into on the default adapter, as the error names it.
fn limit_for(storage: bool) -> (&'static str, u64) {
    let limits = util::gpu().device.limits();
    let binding = if storage {
        (
            "max_storage_buffer_binding_size",
            limits.max_storage_buffer_binding_size,
        )
    } else {
        (
            "max_uniform_buffer_binding_size",
            limits.max_uniform_buffer_binding_size,
        )
    };
    if limits.max_buffer_size < binding.1 {
        ("max_buffer_size", limits.max_buffer_size)
    } else {
        binding
    }
}

/// `--len a=4000000000` asks for 16 GB: exit 2 at once, naming the limit, the size and the
/// longest array that fits, before anything is allocated or filled.
#[test]
fn a_buffer_over_the_limits_exits_2_quickly_naming_the_limit() {
    let _gpu = util::gpu_shared();
    let (limit, max) = limit_for(true);
    let dir = temp_dir();
    std::fs::write(
        path_in(&dir, "big.wgsl"),
        "@group(0) @binding(0) var<storage, read_write> a: array<u32>;\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) { a[gid.x] = gid.x; }\n",
    )
    .unwrap();
    let start = Instant::now();
    let mut cmd = divlab(dir.path());
    cmd.args(["profile", "big.wgsl", "--len", "a=4000000000"]);
    let out = run(cmd);
    out.assert_code(2);
    assert!(start.elapsed() < Duration::from_secs(20), "{out}");
    for part in [
        "`a` (@group(0) @binding(0)) would take 16000000000 bytes (--len a=4000000000)".to_owned(),
        format!("this adapter's `{limit}` is {max} bytes"),
        format!("pass --len a=N with N at most {}", max / 4),
    ] {
        assert!(out.stderr.contains(&part), "no `{part}`\n{out}");
    }
}

/// A uniform buffer whose declared type is over the uniform binding limit: named, with the
/// limit and no --len to suggest.
#[test]
fn a_uniform_over_its_limit_names_max_uniform_buffer_binding_size() {
    let _gpu = util::gpu_shared();
    let (limit, max) = limit_for(false);
    let elements = max / 16 + 1;
    let dir = temp_dir();
    std::fs::write(
        path_in(&dir, "wide.wgsl"),
        format!(
            "@group(0) @binding(0) var<uniform> u: array<vec4<u32>, {elements}>;\n\
             @group(0) @binding(1) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(64)\n\
             fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{ out[gid.x] = u[gid.x].x; }}\n"
        ),
    )
    .unwrap();
    let mut cmd = divlab(dir.path());
    cmd.args(["profile", "wide.wgsl"]);
    let out = run(cmd);
    out.assert_code(2);
    let part = format!(
        "`u` (@group(0) @binding(0)) would take {} bytes, and this adapter's `{limit}` is {max} \
         bytes; the kernel declares it at this size",
        elements * 16
    );
    assert!(out.stderr.contains(&part), "no `{part}`\n{out}");
}

/// A bound that is not the first scalar: the suggested `--buffer PATH=N` sets it alone, over
/// the fill given for the rest, and taken it ends the loop.
#[test]
fn the_suggested_place_sets_the_bound_alone() {
    const SECOND: &str = "\
struct P { scale: f32, count: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0.0;
    for (var i = 0u; i < p.count; i++) { // loop
        acc += p.scale; // body
    }
    out[gid.x] = acc;
}
";
    let fill = "p=values:0.5,4000000000";
    let message = profiled("second.wgsl", SECOND, |r| {
        r.buffers = vec![fill.parse::<BufferSpec>().unwrap()];
    })
    .cap_hit
    .expect("4e9 trips hit the cap");
    says_each(
        &message,
        [
            "It reads its bound from `p.count` (values fill: 4000000000)",
            "pass `--buffer p.count=N` (e.g. `--buffer p.count=64`, the dispatch's 64 invocations), \
         which sets that scalar alone, or `--buffer p=values:...` with `p.count` as value 2 of 2 \
         in layout order",
        ],
    );
    let finished = profiled("second.wgsl", SECOND, |r| {
        r.buffers = [fill, "p.count=64"].map(|s| s.parse().unwrap()).to_vec();
    });
    assert_eq!(finished.cap_hit, None);
    let body = util::line(&finished.profile, line_of(SECOND, "// body"));
    assert_eq!(body.active_lanes, Some(64 * 64));
    // Scaled, the default fill's 64 (the dispatch's invocations) hits the cap: the example
    // is then no longer 64, which the scalar holds already.
    let scaled = SECOND.replace("i < p.count;", "i < p.count * 100000u;");
    let capped = profiled("scaled.wgsl", &scaled, |_| {}).cap_hit;
    let part = "(default fill: 64); pass `--buffer p.count=N` (a smaller N), which";
    assert!(
        capped.as_deref().is_some_and(|m| m.contains(part)),
        "{capped:?}"
    );
}

/// `--buffer BINDING.PLACE=values:...` sets a vector's components at once: a loop over a grid
/// whose dimensions are one `vec2` runs their product, and the document records the option as
/// given.
#[test]
fn a_place_with_values_sets_a_vectors_components() {
    const GRID: &str = "\
struct P { scale: f32, dims: vec2<u32> }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0.0;
    for (var i = 0u; i < p.dims.x * p.dims.y; i++) { // loop
        acc += p.scale; // body
    }
    out[gid.x] = acc;
}
";
    let finished = profiled("grid.wgsl", GRID, |r| {
        r.buffers = vec!["p.dims=values:3,5".parse().unwrap()];
    });
    assert_eq!(finished.cap_hit, None);
    let body = line(&finished.profile, GRID, "// body");
    assert_eq!(body.active_lanes, Some(64 * 15), "3 × 5 trips a lane");
    assert_eq!(finished.profile.request.buffers, ["p.dims=values:3,5"]);
}

/// A spin lock whose lock word starts taken (the default random fill) spins to the cap: the
/// message names the atomic it waits on, the line that reads it and how it started, and says
/// what WGSL does not promise. With the lock free (`zeros`) every invocation takes it in turn.
#[test]
fn a_spin_on_an_atomic_that_hits_the_cap_names_the_atomic_and_its_start() {
    const LOCK: &str = "\
@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> total: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var done = false;
    loop { // loop
        if (done) { break; }
        let r = atomicCompareExchangeWeak(&lock, 0u, 1u); // take
        if (r.exchanged) {
            total[0] = total[0] + 1u;
            atomicStore(&lock, 0u);
            done = true;
        }
    }
}
";
    let message = profiled("lock.wgsl", LOCK, |r| r.loop_cap = 1000)
        .cap_hit
        .expect("a lock that starts taken is never free");
    let (lp, take) = (line_of(LOCK, "// loop"), line_of(LOCK, "// take"));
    assert!(
        message.starts_with(&format!(
            "lock.wgsl:{lp}: an invocation hit the loop cap in the loop here, after 1000 loop \
             iterations in all (the cap counts every loop of one invocation together). It has \
             no bound divlab can trace, but reads the atomic `lock` at each trip (line {take}: \
             `let r = atomicCompareExchangeWeak(&lock, 0u, 1u);`)"
        )),
        "{message}"
    );
    assert!(
        message.contains("`lock` started as its default random fill: pass `--buffer lock=...`"),
        "{message}"
    );
    let free = profiled("lock.wgsl", LOCK, |r| {
        r.loop_cap = 1000;
        r.buffers = vec!["lock=zeros".parse().unwrap()];
    });
    assert_eq!(
        free.cap_hit, None,
        "a free lock is taken by every invocation in turn"
    );
}
