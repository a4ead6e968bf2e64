//! Figures that explain themselves, and defaults that take a kernel's real paths (issue 38):
//! the rows naga makes of a `&&`/`||` chain name their clauses in every output; a workgroup
//! shape whose subgroups are never full says so; a 0/1 flag in a uniform defaults to the path
//! the kernel takes, so a blur in the WebGPU samples' pattern writes every texel. Real runs on
//! the default adapter (lavapipe in CI); every expected figure is derived here from the kernel.

use divlab::profile::fill::{BindingRef, BufferSpec, Fill};
use divlab::profile::report::{
    BranchCost, BranchProfile, CostVerdict, Profile, csv_bytes, json_bytes, render_text,
};
use divlab::profile::run::Finished;

use crate::util;
use crate::util::line_of;

const CHAIN: &str = include_str!("../kernels/profile/clause_chain.wgsl");
const BLUR: &str = include_str!("../kernels/profile/blur_flip.wgsl");
const SHAPE: &str = include_str!("../kernels/profile/workgroup_4x2x4.wgsl");

/// The `if` rows of line `n`, in the profile's order.
fn ifs(p: &Profile, n: u32) -> Vec<&BranchProfile> {
    p.branches
        .iter()
        .filter(|b| b.line == n && b.kind == "if")
        .collect()
}

/// Lanes of `0..128` for which `f` holds.
fn lanes(f: impl Fn(u32) -> bool) -> u64 {
    (0..128).filter(|&i| f(i)).count() as u64
}

/// `i % 2 == 0 && i % 4 == 0 && i % 16 == 0` is three `if` rows on one line, each named by
/// its clause and column, its taken lanes those for which the chain up to the clause held;
/// `i < 8 || i >= 120` is two, the first taken by the lanes for which `i < 8` failed. The text
/// report, the JSON and the CSV all carry the names.
#[test]
fn a_chains_rows_name_their_clauses_in_every_output() {
    let f = util::profiled_as("chain.wgsl", CHAIN, 3, |r| r.dispatch = [2, 1, 1]);
    let p = &f.profile;
    let and = line_of(CHAIN, "// and chain");
    let rows = ifs(p, and);
    let named: Vec<(String, u32, Option<&str>)> = rows
        .iter()
        .map(|b| {
            let c = b.clause.as_ref().expect("each row names its clause");
            (c.text.clone(), c.column, c.operator.as_deref())
        })
        .collect();
    let col = |clause: &str| {
        let text = CHAIN.lines().nth(and as usize - 1).unwrap();
        text.find(clause).unwrap() as u32 + 1
    };
    assert_eq!(
        named,
        [
            ("i % 2u == 0u".to_owned(), col("i % 2u"), Some("&&")),
            ("i % 4u == 0u".to_owned(), col("i % 4u"), Some("&&")),
            ("i % 16u == 0u".to_owned(), col("i % 16u"), None),
        ]
    );
    let taken: Vec<Option<u64>> = rows.iter().map(|b| b.taken).collect();
    assert_eq!(
        taken,
        [
            Some(lanes(|i| i % 2 == 0)),
            Some(lanes(|i| i % 4 == 0)),
            Some(lanes(|i| i % 16 == 0)),
        ]
    );
    let or = ifs(p, line_of(CHAIN, "// or chain"));
    assert_eq!(or.len(), 2);
    let first = or[0].clause.as_ref().unwrap();
    assert_eq!(
        (first.text.as_str(), first.operator.as_deref()),
        ("i < 8u", Some("||"))
    );
    assert_eq!(
        or[0].taken,
        Some(lanes(|i| i >= 8)),
        "the lanes that go on to `i >= 120u`"
    );
    assert_eq!(or[1].taken, Some(lanes(|i| !(8..120).contains(&i))));

    let text = render_text(p);
    for row in &rows {
        let label = row.kind_label();
        assert!(
            text.contains(&format!("line {and:>4} {label}")),
            "{label}\n{text}"
        );
    }
    assert!(text.contains("if `i % 2u == 0u` && (col "), "{text}");
    // An `||` row's then side is the lanes for which the chain failed, and the text says so.
    let or_line = line_of(CHAIN, "// or chain");
    let or_text = CHAIN.lines().nth(or_line as usize - 1).unwrap();
    let or_col = or_text.find("i < 8u").unwrap() + 1;
    let first_or =
        format!("if `i < 8u` || (col {or_col}): the chain up to it failed for 94% of lanes");
    assert!(text.contains(&first_or), "{first_or}\n{text}");
    // A row's cost names its clause too, as the rows of one line differ.
    let mut costed = p.clone();
    let row = (costed.branches.iter_mut())
        .find(|b| b.line == and)
        .expect("a row of the chain");
    let reason = "past --cost-top".to_owned();
    row.cost = Some(BranchCost::unmeasured(
        CostVerdict::NotMeasured,
        None,
        reason,
    ));
    let label = row.kind_label();
    let costs = render_text(&costed);
    let costs = costs
        .split("cost of divergence")
        .nth(1)
        .expect("a cost list");
    assert!(
        costs.contains(&format!("line {and:>4} {label} not_measured")),
        "{costs}"
    );
    let json = String::from_utf8(json_bytes(p)).unwrap();
    assert!(json.contains("\"text\": \"i % 16u == 0u\""), "{json}");
    let csv = String::from_utf8(csv_bytes(p)).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.contains(",clause,clause_operator,clause_line,clause_column,"),
        "{header}"
    );
    assert!(
        csv.contains(&format!(",i % 4u == 0u,&&,{and},{}", col("i % 4u"))),
        "{csv}"
    );
}

/// A 4×2×4 workgroup holds 32 invocations, enough for full subgroups of 8, but lavapipe fills a
/// subgroup from one row along x: the widest ballot is 4, and a note says what caps every line
/// (and the entry point's executions are not taken for a driver fault).
#[test]
fn a_workgroup_shape_whose_subgroups_are_never_full_says_so() {
    let f = util::profiled_as("shape.wgsl", SHAPE, 3, |r| r.dispatch = [2, 1, 1]);
    let p = &f.profile;
    let (sg, widest) = (p.subgroup_size.unwrap(), p.widest_ballot.unwrap());
    assert_eq!(sg, util::expected_subgroup_size());
    let store = util::line(p, line_of(SHAPE, "// store"));
    // Σ active lanes is the invocations, whatever the packing; executions show it.
    assert_eq!(store.active_lanes, Some(64));
    assert_eq!(store.executions, 64u64.div_ceil(u64::from(widest)));
    let never_full: Vec<&String> = p
        .notes
        .iter()
        .filter(|n| n.starts_with("subgroups are never full"))
        .collect();
    assert_eq!(never_full.len(), usize::from(widest < sg), "{:#?}", p.notes);
    if sg == 8 {
        assert_eq!(widest, 4, "lavapipe fills a subgroup from one row along x");
        assert!(
            never_full[0].contains("held 4 of 8 lanes") && never_full[0].contains("50%"),
            "{}",
            never_full[0]
        );
    }
    assert!(
        !p.notes.iter().any(|n| n.contains("the driver ran")),
        "{:#?}",
        p.notes
    );
}

/// Profiles the blur with the request `configure` sets up, keeping its pictures.
fn blur(configure: impl FnOnce(&mut divlab::profile::run::Request)) -> Finished {
    util::profiled_as("blur.wgsl", BLUR, 3, |r| {
        r.dispatch = [2, 2, 1];
        r.keep_images = true;
        configure(r);
    })
}

/// The blur's `flip` is only compared with 0: by default it is 0, the untransposed path, and
/// every texel of the 16×8 output is written (alpha 1), one invocation each; the note says
/// what was inferred and how to choose the other path, which `--buffer` then takes.
#[test]
fn a_blurs_flag_defaults_to_its_untransposed_path_and_every_texel_is_written() {
    let f = blur(|_| {});
    let p = &f.profile;
    let transpose = util::line(p, line_of(BLUR, "// transpose"));
    assert_eq!(transpose.executions, 0, "the untransposed path");
    let store = util::line(p, line_of(BLUR, "// store"));
    let lanes = store.active_lanes.unwrap_or(store.executions);
    assert_eq!(lanes, 16 * 8, "one store per texel");
    let dst = f.images.iter().find(|i| i.name == "dst").expect("dst");
    assert_eq!(dst.size, [16, 8]);
    let unwritten = dst.rgba.chunks(4).filter(|px| px[3] != 255).count();
    assert_eq!(unwritten, 0, "every texel written");
    let note = p
        .notes
        .iter()
        .find(|n| n.starts_with("`params.flip`"))
        .unwrap_or_else(|| panic!("{:#?}", p.notes));
    assert!(
        note.contains("set it to 0") && note.contains("--buffer params=values:"),
        "{note}"
    );
    // The filter size is no flag: it keeps the invocations.
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("`params.filter_size` holds 128")),
        "{:#?}",
        p.notes
    );
    // Asked for, the flag takes the transposed path: only the texels whose transposed
    // coordinates fall inside the 16×8 output are written.
    let f = blur(|r| {
        r.buffers = vec![BufferSpec {
            target: BindingRef::Name("params".to_owned()),
            place: None,
            fill: Fill::Values(vec![7.0, 1.0]),
        }];
    });
    let transpose = util::line(&f.profile, line_of(BLUR, "// transpose"));
    assert!(transpose.executions > 0);
    let dst = f.images.iter().find(|i| i.name == "dst").expect("dst");
    let written = dst.rgba.chunks(4).filter(|px| px[3] == 255).count();
    assert_eq!(written, 8 * 8, "x < 8 and y < 8 after the transpose");
    assert!(
        !f.profile
            .notes
            .iter()
            .any(|n| n.starts_with("`params.flip`"))
    );
}

/// The game of life on a buffer of cells: the kernel compares a cell with 1, so the default
/// fill holds 0s and 1s (random bits) rather than full-range integers, and the `alive` branch
/// is taken by about half the lanes; asked for full-range integers, almost none is 1.
const LIFE: &str = "\
@group(0) @binding(0) var<storage, read> cells: array<u32>;
@group(0) @binding(1) var<storage, read_write> next: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    var n = 0u;
    for (var d = 1u; d <= 2u; d++) {
        n += cells[(i + d) % 256u] + cells[(i + 256u - d) % 256u];
    }
    var state = 0u;
    if (cells[i] == 1u) { // alive
        state = select(0u, 1u, n == 2u || n == 3u);
    } else if (n == 3u) {
        state = 1u;
    }
    next[i] = state;
}
";

#[test]
fn cells_compared_with_1_default_to_random_0s_and_1s() {
    let f = util::profiled_as("life.wgsl", LIFE, 3, |r| r.dispatch = [4, 1, 1]);
    let cells = f
        .inputs
        .iter()
        .find(|i| i.label.starts_with("`cells`"))
        .expect("cells");
    assert!(
        cells.first.iter().all(|v| v == "0u" || v == "1u"),
        "{cells:?}"
    );
    assert!(cells.first.iter().any(|v| v == "1u") && cells.first.iter().any(|v| v == "0u"));
    assert!(
        cells.fill.ends_with("integers cut to 0 and 1: cells)"),
        "{}",
        cells.fill
    );
    let alive = util::branch(&f.profile, line_of(LIFE, "// alive"), "if");
    let share = alive.taken_share().expect("a taken share");
    assert!((0.3..0.7).contains(&share), "{share}");
    assert!(
        f.profile.notes.iter().any(|n| n
            .starts_with("`cells` has no --buffer, and the kernel compares its elements with 1")),
        "{:#?}",
        f.profile.notes
    );
    let f = util::profiled_as("life.wgsl", LIFE, 3, |r| {
        r.dispatch = [4, 1, 1];
        r.buffers = vec!["cells=random".parse().unwrap()];
    });
    let alive = util::branch(&f.profile, line_of(LIFE, "// alive"), "if");
    assert_eq!(
        alive.taken,
        Some(0),
        "full-range integers are almost never 1"
    );
}

/// A uniform's fields that bound a texture's coordinates (`gid.x >= params.width` where
/// `gid.xy` addresses the texture) hold the texture's size; a field that is neither a flag nor
/// a bound keeps the dispatch's invocations.
const BOUNDS: &str = "\
struct Params { width: u32, height: u32, scale: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(2) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.width || gid.y >= params.height) {
        return;
    }
    data[gid.y * params.width + gid.x] = params.scale;
    textureStore(dst, gid.xy, vec4<f32>(1.0));
}
";

#[test]
fn fields_that_bound_a_textures_coordinates_hold_its_size() {
    let f = util::profiled_as("bounds.wgsl", BOUNDS, 3, |r| {
        r.dispatch = [3, 1, 1];
        r.textures.sizes = vec!["dst=20x6".parse().unwrap()];
    });
    let params = f
        .inputs
        .iter()
        .find(|i| i.label.starts_with("`params`"))
        .expect("params");
    assert_eq!(params.first, ["20u", "6u", "192u"], "{params:?}");
    for (field, what) in [("width", "width, 20"), ("height", "height, 6")] {
        assert!(
            f.profile.notes.iter().any(|n| n
                .starts_with(&format!("`params.{field}` (uniform, no --buffer) bounds"))
                && n.contains(what)),
            "{:#?}",
            f.profile.notes
        );
    }
    // 24×8 invocations over a 20×6 texture: those outside it return.
    let store = util::line(&f.profile, line_of(BOUNDS, "textureStore"));
    let lanes = store.active_lanes.unwrap_or(store.executions);
    assert_eq!(lanes, 20 * 6);
}

/// A uniform's field that bounds a runtime-sized array's index holds the array's length where
/// `--len` makes it other than the dispatch's invocations (which the rule gives anyway).
const LENGTH: &str = "\
struct Params { count: u32, scale: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.count) {
        return;
    }
    data[gid.x] = params.scale; // store
}
";

#[test]
fn a_field_that_bounds_an_arrays_index_holds_its_length() {
    let f = util::profiled_as("length.wgsl", LENGTH, 3, |r| {
        r.dispatch = [2, 1, 1];
        r.lens = vec![divlab::profile::fill::parse_len("data=70").unwrap()];
    });
    let store = util::line(&f.profile, line_of(LENGTH, "// store"));
    assert_eq!(store.active_lanes.unwrap_or(store.executions), 70);
    assert!(
        f.profile.notes.iter().any(|n| n.starts_with(
            "`params.count` (uniform, no --buffer) bounds the index of `data` (line 7): divlab \
             set it to the array's length, 70"
        )),
        "{:#?}",
        f.profile.notes
    );
    // Without --len the length is the invocations, and the rule's note stands.
    let f = util::profiled_as("length.wgsl", LENGTH, 3, |r| r.dispatch = [2, 1, 1]);
    assert!(
        f.profile
            .notes
            .iter()
            .any(|n| n.contains("its integer fields `params.count` and `params.scale` hold 128")),
        "{:#?}",
        f.profile.notes
    );
}

/// The text report's top list, as `render_text` writes it.
fn top_list(profile: &Profile) -> String {
    let text = render_text(profile);
    let top = text
        .split("top divergent branches")
        .nth(1)
        .expect("a top list");
    top.split("\ntime:").next().unwrap().to_owned()
}

/// The top list's row for `line`, where it has one.
fn top_row(top: &str, line: u32) -> Option<&str> {
    top.lines()
        .find(|l| l.starts_with(&format!("  line {line:>4} ")))
}

/// Idle slots in a branch that never diverged are the cost of the branch or loop around it,
/// which does not count them: the top list keeps the branch and names that one. An `if`
/// inside a loop that lanes leave at different trips (every lane still in the loop takes the
/// same side), and a loop that one lane runs alone inside an `if` (the serial part of a
/// reduction). Where nothing around it diverged, lanes left before it: an early return.
#[test]
fn the_top_list_says_when_a_branchs_idle_slots_come_from_around_it() {
    let never = |kind: &str, line: u32| {
        format!(
            "; never diverged: its idle slots are lanes the {kind} at line {line} around it left out"
        )
    };
    const LOOP: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var k = 0u;
    loop {
        k += 1u;
        if (k % 3u == 0u) { // every third trip
            out[gid.x] += k;
        }
        if (k >= 2u + gid.x % 8u) { break; } // exit
    }
}
";
    let f = util::profiled_as("trips.wgsl", LOOP, 3, |r| r.dispatch = [2, 1, 1]);
    let every_third = line_of(LOOP, "// every third trip");
    let row = (f.profile.branches.iter())
        .find(|b| b.line == every_third)
        .expect("the if's row");
    assert_eq!(row.divergent, 0, "{row:?}");
    assert!(row.wasted_lane_slots.unwrap() > 0, "{row:?}");
    let top = top_list(&f.profile);
    let listed = |line: u32| top_row(&top, line).unwrap_or_else(|| panic!("{line}: {top}"));
    let around = never("loop", line_of(LOOP, "loop {"));
    assert!(listed(every_third).ends_with(&around), "{top}");
    assert_eq!(row.inherited_from, Some(line_of(LOOP, "loop {")));
    assert!(
        !listed(line_of(LOOP, "// exit")).contains("never diverged"),
        "{top}"
    );
    assert!(
        !listed(line_of(LOOP, "loop {")).contains("never diverged"),
        "{top}"
    );

    const SERIAL: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    if (lid == 0u) {
        var s = 0u;
        for (var i = 0u; i < 32u; i++) { // serial
            s += out[wg.x * 64u + i];
        }
        out[wg.x * 64u] = s;
    }
}
";
    let f = util::profiled_as("serial.wgsl", SERIAL, 3, |r| r.dispatch = [2, 1, 1]);
    let top = top_list(&f.profile);
    let serial = top_row(&top, line_of(SERIAL, "// serial")).unwrap_or_else(|| panic!("{top}"));
    assert!(serial.contains("lanes left on 0 of "), "{serial}");
    assert!(
        serial.ends_with(&never("if", line_of(SERIAL, "if (lid == 0u)"))),
        "{serial}"
    );

    // A loop left by a `break` that every lane takes at the same trip never diverged; one that
    // lanes leave at different trips did, even where its test never disagreed.
    const BREAKS: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if (lid == 0u) {
        var i = 0u;
        loop { // together
            if (i >= 32u) { break; }
            out[i] += 1u;
            i += 1u;
        }
    }
    for (var j = 0u; j < 64u; j++) { // apart
        if (j == lid % 8u) { break; }
        out[lid] += j;
    }
}
";
    // With --cost, the loop its lanes left apart is priced by its counts; the other did not
    // diverge.
    let f = util::profiled_as("breaks.wgsl", BREAKS, 3, |r| {
        r.dispatch = [1, 1, 1];
        r.cost_top = Some(5);
    });
    let row = |marker: &str| {
        let line = line_of(BREAKS, marker);
        (f.profile.branches.iter())
            .find(|b| b.line == line && b.kind == "loop")
            .unwrap_or_else(|| panic!("{marker}"))
    };
    assert_eq!(row("// together").left_early, Some(false));
    // Its idle slots count each trip once, though the `break`'s `if` splits its body in two.
    let together = row("// together");
    let sg = u64::from(f.profile.subgroup_size.expect("subgroups"));
    let (trips, lane_trips) = (together.trips.unwrap(), together.lane_trips.unwrap());
    assert_eq!(together.wasted_lane_slots, Some(trips * sg - lane_trips));
    assert_eq!(row("// apart").left_early, Some(true));
    assert_eq!(row("// apart").divergent, 0, "its test never disagreed");
    let verdict = |marker: &str| row(marker).cost.as_ref().map(|c| c.verdict);
    assert_eq!(verdict("// apart"), Some(CostVerdict::CountOnly));
    assert_eq!(verdict("// together"), Some(CostVerdict::NotDivergent));
    let top = top_list(&f.profile);
    let together = top_row(&top, line_of(BREAKS, "// together")).unwrap_or_else(|| panic!("{top}"));
    assert!(
        together.ends_with(&never("if", line_of(BREAKS, "if (lid == 0u)"))),
        "{together}"
    );
    let apart = top_row(&top, line_of(BREAKS, "// apart")).unwrap_or_else(|| panic!("{top}"));
    assert!(
        apart.ends_with("lanes left early by a break or return"),
        "{apart}"
    );

    const EARLY: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if (lid % 8u >= 3u) { return; }
    if (lid < 1000u) { // every lane left takes it
        out[lid] += 1u;
    }
}
";
    let f = util::profiled_as("early.wgsl", EARLY, 3, |r| r.dispatch = [1, 1, 1]);
    let takes_it_line = line_of(EARLY, "// every lane left takes it");
    let row = (f.profile.branches.iter()).find(|b| b.line == takes_it_line);
    assert_eq!(
        row.and_then(|b| b.inherited_from),
        Some(0),
        "none around it"
    );
    let top = top_list(&f.profile);
    let takes_it = top_row(&top, line_of(EARLY, "// every lane left takes it"))
        .unwrap_or_else(|| panic!("{top}"));
    assert!(
        takes_it.ends_with(
            "; never diverged: its lanes were idle before it (an earlier return or break, a \
             branch in a caller, or a partial subgroup)"
        ),
        "{takes_it}"
    );
}
