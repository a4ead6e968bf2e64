//! A scalar that a loop counts up to, left to the default fill: a storage buffer's element at
//! a constant index holds the dispatch's invocations, as a uniform's integer fields and vector
//! components do, so the loops run to their end instead of into the cap. Counts are derived
//! here from the kernel and the dispatch, for any subgroup size dividing 64.

use divlab::profile::report::LineProfile;
use divlab::profile::run::Finished;

use crate::util;
use crate::util::line_of;

const KERNEL: &str = "\
struct Shape { dims: vec4<u32> }
@group(0) @binding(0) var<storage, read> info: array<u32>;
@group(0) @binding(1) var<uniform> shape: Shape;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0u;
    for (var i = 0u; i < info[1]; i++) { // rows
        if ((i + gid.x) % 3u == 0u) { // every third
            acc += i; // add
        }
    }
    for (var j = 0u; j < shape.dims.x; j += 2u) { // cols
        acc ^= j; // xor
    }
    out[gid.x] = acc;
}
";

/// The kernel on two workgroups (128 invocations), with `buffers` given.
fn profiled(buffers: &[&str], loop_cap: u32) -> Finished {
    util::profiled_as("bounds.wgsl", KERNEL, 1, |r| {
        r.dispatch = [2, 1, 1];
        r.buffers = buffers.iter().map(|b| b.parse().unwrap()).collect();
        r.loop_cap = loop_cap;
    })
}

fn lanes(finished: &Finished, marker: &str) -> (u64, Option<u64>) {
    let l: &LineProfile = util::line(&finished.profile, line_of(KERNEL, marker));
    (l.executions, l.active_lanes)
}

/// Asserts that some note holds each of `said`.
fn notes_say(notes: &[String], said: impl IntoIterator<Item = String>) {
    for said in said {
        assert!(
            notes.iter().any(|n| n.contains(&said)),
            "no `{said}` in {notes:#?}"
        );
    }
}

/// The pairs (i, x) in 0..rows × 0..128 with (i + x) % 3 == 0.
fn thirds(rows: u64) -> u64 {
    let n = 128u64;
    (0..rows)
        .flat_map(|i| (0..n).map(move |x| (i + x) % 3 == 0))
        .filter(|&hit| hit)
        .count() as u64
}

/// With no --buffer, `info[1]` and `shape.dims.x` hold 128: the rows loop runs 128 trips and
/// the cols loop 64, every lane alike; a note names each (the storage scalar with its loop, the
/// uniform's vector with its other integers) and its value, and the input preview shows them.
#[test]
fn a_scalar_a_loop_counts_up_to_holds_the_invocations_by_default() {
    let finished = profiled(&[], 100_000);
    assert!(finished.cap_hit.is_none(), "{:?}", finished.cap_hit);
    let sg = u64::from(
        finished
            .profile
            .subgroup_size
            .expect("lavapipe has subgroups"),
    );
    let (n, subgroups) = (128u64, 128 / sg);
    assert_eq!(
        lanes(&finished, "// every third"),
        (subgroups * n, Some(n * n))
    );
    assert_eq!(lanes(&finished, "// add").1, Some(thirds(n)));
    assert_eq!(lanes(&finished, "// xor"), (subgroups * 64, Some(n * 64)));
    let line = line_of(KERNEL, "// rows");
    notes_say(
        &finished.profile.notes,
        [
            format!(
                "`info[1]` has no --buffer, and the loop at line {line} counts up to it: divlab set \
                 it to the dispatch's invocations, 128"
            ),
            // A uniform's integer vector holds the invocations as its other integers do.
            "`shape` (uniform) has no --buffer: its integer fields `shape.dims.x`, `shape.dims.y`, \
             `shape.dims.z` and `shape.dims.w` hold 128"
                .to_owned(),
        ],
    );
    let info = (finished.inputs.iter())
        .find(|i| i.label.starts_with("`info`"))
        .expect("an input preview of info");
    assert!(info.fill.contains("[1] = 128"), "{}", info.fill);
    assert_eq!(info.first.get(1).map(String::as_str), Some("128u"));
}

/// `--buffer info[1]=5` sets the scalar over the default: 5 rows, and no note for it; the
/// uniform's component keeps its default and its note.
#[test]
fn a_place_given_on_the_command_line_wins_over_the_bound_default() {
    let finished = profiled(&["info[1]=5"], 100_000);
    let sg = u64::from(finished.profile.subgroup_size.unwrap());
    assert_eq!(
        lanes(&finished, "// every third"),
        (128 / sg * 5, Some(128 * 5))
    );
    assert_eq!(lanes(&finished, "// add").1, Some(thirds(5)));
    let notes = &finished.profile.notes;
    assert!(
        !notes
            .iter()
            .any(|n| n.contains("`info[1]` has no --buffer")),
        "{notes:#?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`shape` (uniform) has no --buffer")),
        "{notes:#?}"
    );
}

/// A random fill asked for by name is the random fill: the rows loop runs into the cap, and
/// the message gives the random value it read.
#[test]
fn a_random_fill_given_by_name_keeps_its_random_bound() {
    let finished = profiled(&["info=random"], 1000);
    let message = finished
        .cap_hit
        .expect("a random u32 bound runs into a cap of 1000");
    assert!(
        message.contains("reads its bound from `info[1]` (random fill: "),
        "{message}"
    );
}

/// A sparse row's range and a cell's count, each read at the invocation's index.
const ELEMENTS: &str = "\
@group(0) @binding(0) var<storage, read> row_ptr: array<u32>;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.x;
    var acc = 0u;
    let n = row_ptr[row + 1u] - row_ptr[row];
    for (var k = 0u; k < n; k++) { // row
        acc += row_ptr[row] + k; // nonzero
    }
    for (var c = 0u; c < counts[row]; c++) { // cell
        acc ^= c; // particle
    }
    out[row] = acc;
}
";

/// The `u32`s of the default fill of binding `name` of `ELEMENTS` on 128 invocations, as the
/// library makes them.
fn default_words(name: &str) -> Vec<u64> {
    default_words_of(ELEMENTS, name, &[])
}

/// The `u32`s of binding `name` of `source` on 128 invocations, with `buffers` given, as the
/// library makes them.
fn default_words_of(source: &str, name: &str, buffers: &[&str]) -> Vec<u64> {
    use divlab::profile::{explain, fill, kernel::Kernel};
    let kernel = Kernel::parse("elements.wgsl", source, &[], None).unwrap();
    let buffers: Vec<fill::BufferSpec> = buffers.iter().map(|b| b.parse().unwrap()).collect();
    let mut resolved = fill::resolve(&kernel.interface, &buffers, &[]).unwrap();
    explain::infer(&kernel, &mut resolved, 128);
    let r = (resolved.iter())
        .find(|r| kernel.interface.bindings[r.index].name == name)
        .unwrap();
    let bytes = fill::initial(&kernel.interface.bindings[r.index], r, 128).unwrap();
    (bytes.chunks_exact(4))
        .map(|w| u64::from(u32::from_le_bytes(w.try_into().unwrap())))
        .collect()
}

/// With no --buffer, `row_ptr` ascends by 0 to 7 from 0 (a difference of two of its elements
/// is a bound), with one element more than the invocations so that the last row's range has
/// its end, and `counts` holds 0 to 7: both loops run a handful of trips, different from lane
/// to lane, and the GPU counts exactly the trips those elements give.
#[test]
fn buffers_whose_elements_loops_count_up_to_hold_a_handful_by_default() {
    let row_ptr = default_words("row_ptr");
    let counts = default_words("counts");
    assert_eq!((row_ptr.len(), counts.len(), row_ptr[0]), (129, 128, 0));
    assert!(row_ptr.windows(2).all(|w| w[0] <= w[1] && w[1] - w[0] <= 7));
    assert!(counts.iter().all(|&c| c <= 7));
    let rows: u64 = (0..128).map(|r| row_ptr[r + 1] - row_ptr[r]).sum();
    let cells: u64 = counts.iter().sum();
    assert!(
        rows > 128 && cells > 128,
        "a handful each, not 0: {rows} {cells}"
    );

    let finished = util::profiled_as("elements.wgsl", ELEMENTS, 1, |r| r.dispatch = [2, 1, 1]);
    assert!(finished.cap_hit.is_none(), "{:?}", finished.cap_hit);
    let at = |marker| util::line(&finished.profile, line_of(ELEMENTS, marker));
    assert_eq!(at("// nonzero").active_lanes, Some(rows));
    assert_eq!(at("// particle").active_lanes, Some(cells));
    let sg = u64::from(finished.profile.subgroup_size.unwrap());
    assert!(at("// nonzero").executions <= 7 * 128 / sg);
    notes_say(
        &finished.profile.notes,
        [
            format!(
                "`row_ptr` has no --buffer, and the loop at line {} counts up to its elements (at \
                 the index `row + 1u`, which varies): a loop runs over a range of two of them, so \
                 divlab made its integers ascend by 0 to 7",
                line_of(ELEMENTS, "// row")
            ),
            format!(
                "`counts` has no --buffer, and the loop at line {} counts up to its elements (at \
                 the index `row`, which varies): divlab cut its random integers to 0 to 7",
                line_of(ELEMENTS, "// cell")
            ),
        ],
    );
}

/// A grid's cells, each a range of particles from `cell_start` to `cell_end`, the pattern of
/// particle solvers: every invocation visits three cells.
const CELLS: &str = "\
@group(0) @binding(0) var<storage, read> cell_start: array<u32>;
@group(0) @binding(1) var<storage, read> cell_end: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0u;
    for (var d = 0u; d < 3u; d++) {
        let c = (gid.x + d) % 128u;
        let first = cell_start[c];
        for (var j = first; j < cell_end[c]; j++) { // cell
            acc += j; // particle
        }
    }
    out[gid.x] = acc;
}
";

/// With no --buffer, `cell_start` ascends by 0 to 7 and `cell_end` holds the next of each, so
/// that each cell holds 0 to 7 particles; before, the starts were random `u32`s beyond the cut
/// ends and the loop never ran. The GPU counts exactly the trips those elements give, and a
/// note names both buffers.
#[test]
fn ranges_from_one_buffer_to_another_hold_a_handful_by_default() {
    let start = default_words_of(CELLS, "cell_start", &[]);
    let end = default_words_of(CELLS, "cell_end", &[]);
    assert_eq!((start.len(), end.len(), start[0]), (129, 128, 0));
    assert!((0..128).all(|c| end[c] == start[c + 1] && end[c] - start[c] <= 7));
    let trips: u64 = (0..128u64)
        .flat_map(|x| (0..3).map(move |d| ((x + d) % 128) as usize))
        .map(|c| end[c] - start[c])
        .sum();
    assert!(trips > 3 * 128, "a handful each, not 0: {trips}");

    let finished = util::profiled_as("cells.wgsl", CELLS, 1, |r| r.dispatch = [2, 1, 1]);
    assert!(finished.cap_hit.is_none(), "{:?}", finished.cap_hit);
    let at = |marker| util::line(&finished.profile, line_of(CELLS, marker));
    assert_eq!(at("// particle").active_lanes, Some(trips));
    let preview = |name: &str| {
        (finished.inputs.iter())
            .find(|i| i.label.starts_with(&format!("`{name}`")))
            .map(|i| i.fill.clone())
            .unwrap_or_default()
    };
    assert!(
        preview("cell_start").contains("ascending by 0..7: starts of ranges that `cell_end` ends"),
        "{}",
        preview("cell_start")
    );
    assert!(
        preview("cell_end").contains("each 0..7 past `cell_start`'s: ends of its ranges"),
        "{}",
        preview("cell_end")
    );
    let line = line_of(CELLS, "// cell");
    notes_say(
        &finished.profile.notes,
        [
            format!(
                "`cell_start` has no --buffer, and the loop at line {line} runs from its elements \
                 to those of `cell_end` (at the index `c`, which varies): divlab made its integers \
                 ascend by 0 to 7"
            ),
            format!(
                "`cell_end` has no --buffer, and the loop at line {line} runs from the elements of \
                 `cell_start` to its own (at the index `c`, which varies): divlab made each of its \
                 integers the one after the same index of `cell_start`"
            ),
        ],
    );
}

/// Where `--buffer` gives the starts, the ends are counts of their own, cut to 0 to 7; where
/// it gives the ends, the starts ascend as a range's do.
#[test]
fn a_given_end_of_the_ranges_leaves_the_other_to_its_own_rule() {
    let end = default_words_of(CELLS, "cell_end", &["cell_start=zeros"]);
    assert!(end.iter().all(|&e| e <= 7) && end.iter().any(|&e| e > 0));
    let start = default_words_of(CELLS, "cell_start", &["cell_end=iota"]);
    assert_eq!((start.len(), start[0]), (129, 0));
    assert!(start.windows(2).all(|w| w[0] <= w[1] && w[1] - w[0] <= 7));
    let alone = default_words_of(CELLS, "cell_start", &[]);
    assert_eq!(start, alone, "the same ascending steps either way");
}

/// A scalar a loop counts up to that lies past the end of its buffer's default length is not
/// set, and no note says it is; with `--len` long enough, it is.
#[test]
fn a_bound_past_the_default_length_is_left_alone() {
    use divlab::profile::{explain, fill, kernel::Kernel};
    let source = "\
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    var acc = 0u;
    for (var i = 0u; i < data[300]; i++) { acc += i; }
    data[li] = acc;
}
";
    let kernel = Kernel::parse("far.wgsl", source, &[], None).unwrap();
    let bounds = |lens: &[(fill::BindingRef, u64)]| {
        let mut resolved = fill::resolve(&kernel.interface, &[], lens).unwrap();
        explain::infer(&kernel, &mut resolved, 64);
        let inferred = resolved.remove(0).inferred;
        (inferred.iter())
            .filter(|i| matches!(i, fill::Inferred::Bound { .. }))
            .count()
    };
    assert_eq!(bounds(&[]), 0, "64 elements: data[300] is past the end");
    assert_eq!(bounds(&[fill::parse_len("data=301").unwrap()]), 1);
}
