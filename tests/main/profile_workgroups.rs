//! `divlab profile` on the kernel shapes issue 24 found failing: 2-D workgroups that use
//! subgroup operations themselves (with `--lanes`), modules with several entry points, loop
//! nests bounded by inputs, and workgroups smaller than a subgroup. Every expected figure is
//! derived here from the kernel, for any subgroup size SG that divides 64; SG itself is read
//! from the profile and checked against the device.

use std::collections::BTreeSet;

use divlab::profile::fill::{BindingRef, BufferSpec};
use divlab::profile::report::{BranchProfile, LineProfile, Profile, render_text};
use divlab::profile::run::{Finished, Request};

use crate::util;
use crate::util::line_of;

const TILE: &str = include_str!("../kernels/profile/tile_sum_8x8.wgsl");
const THREE: &str = include_str!("../kernels/profile/three_entries.wgsl");
const NESTED: &str = include_str!("../kernels/profile/nested_input_loops.wgsl");
const ONE: &str = include_str!("../kernels/profile/one_invocation_workgroups.wgsl");

/// Profiles `source` on the default adapter with the request `configure` sets up.
fn profiled(source: &str, configure: impl FnOnce(&mut Request)) -> Finished {
    util::profiled_as("test.wgsl", source, 3, configure)
}

/// The profile of the line marked `marker`.
fn at<'a>(p: &'a Profile, source: &str, marker: &str) -> &'a LineProfile {
    let n = line_of(source, marker);
    p.lines
        .iter()
        .find(|l| l.line == n)
        .unwrap_or_else(|| panic!("no profile for line {n} ({marker}): {:#?}", p.lines))
}

/// (executions, active lanes) of the line marked `marker`.
fn counts(p: &Profile, source: &str, marker: &str) -> (u64, Option<u64>) {
    let l = at(p, source, marker);
    (l.executions, l.active_lanes)
}

/// The branch of `kind` on the line marked `marker`: (executions, divergent).
fn branch(p: &Profile, source: &str, marker: &str, kind: &str) -> (u64, u64) {
    let n = line_of(source, marker);
    let b: &BranchProfile = p
        .branches
        .iter()
        .find(|b| b.line == n && b.kind == kind)
        .unwrap_or_else(|| panic!("no {kind} at line {n} ({marker}): {:#?}", p.branches));
    (b.executions, b.divergent)
}

/// The profile's subgroup size, checked against the device's.
fn subgroup_size(p: &Profile) -> u64 {
    let sg = p.subgroup_size.expect("lavapipe has subgroups");
    assert_eq!(sg, util::expected_subgroup_size());
    assert!(sg >= 4 && 64 % sg == 0, "SG = {sg}");
    u64::from(sg)
}

fn assert_clean(p: &Profile) {
    assert!(
        !p.notes.iter().any(|n| n.contains("divlab bug")),
        "{:#?}",
        p.notes
    );
}

/// What a branch on a per-invocation condition does in one subgroup of a workgroup's
/// invocations taken `sg` at a time in local index order (the order the lane records show):
/// (executions of the taken side, its active lanes, evaluations, divergent evaluations), summed
/// over the workgroup's 64 invocations.
fn branch_by_subgroup(sg: u64, taken: impl Fn(u64) -> bool) -> (u64, u64, u64, u64) {
    let mut sums = (0, 0, 0, 0);
    for k in 0..64 / sg {
        let active = (k * sg..(k + 1) * sg).filter(|&i| taken(i)).count() as u64;
        sums.0 += u64::from(active > 0);
        sums.1 += active;
        sums.2 += 1;
        sums.3 += u64::from(active > 0 && active < sg);
    }
    sums
}

/// An 8x8 tile reduction with subgroupAdd and a branch on `local_invocation_id.x < 3`, over 2x2
/// workgroups, with `--lanes` at the branch's body. Subgroup k of a workgroup holds local
/// indices k·SG .. k·SG + SG - 1 (the lane records below check it, lane by lane), so for SG ≥ 8
/// every subgroup has 3 of each 8 lanes in the branch (divergent), and for SG = 4 the subgroups
/// of x = 0..3 have 3 of 4 (divergent) and those of x = 4..7 none (uniform). The leader branch
/// takes one lane per subgroup, the first-invocation branch one lane of subgroup 0, and its loop
/// runs 64/SG trips in that lane.
#[test]
fn a_2d_tile_reduction_with_subgroup_ops_profiles_with_lane_ids() {
    let weight = line_of(TILE, "// tile: weight");
    let finished = profiled(TILE, |r| {
        r.dispatch = [2, 2, 1];
        r.lanes_line = Some(weight);
    });
    assert!(TILE.starts_with(&format!(
        "// divlab-profile: --dispatch 2,2 --lanes {weight}\n"
    )));
    let p = &finished.profile;
    assert_clean(p);
    assert!(!p.loop_cap_hit);
    assert_eq!(p.kernel.workgroup_size, [8, 8, 1]);
    let sg = subgroup_size(p);
    let (g, wgs) = (64 / sg, 4);

    assert_eq!(counts(p, TILE, "let tile ="), (wgs * g, Some(wgs * 64)));
    let (runs, lanes, evals, divergent) = branch_by_subgroup(sg, |i| i % 8 < 3);
    assert_eq!(
        branch(p, TILE, "// tile: left", "if"),
        (wgs * evals, wgs * divergent)
    );
    assert_eq!(
        counts(p, TILE, "// tile: weight"),
        (wgs * runs, Some(wgs * lanes))
    );
    assert_eq!(lanes, 24, "three columns of eight rows");
    // The statements after the branch run with every lane again.
    assert_eq!(counts(p, TILE, "subgroupAdd(v)"), (wgs * g, Some(wgs * 64)));
    assert_eq!(branch(p, TILE, "// tile: leader", "if"), (wgs * g, wgs * g));
    assert_eq!(
        counts(p, TILE, "// tile: partial"),
        (wgs * g, Some(wgs * g))
    );
    assert_eq!(branch(p, TILE, "// tile: first", "if"), (wgs * g, wgs));
    assert_eq!(counts(p, TILE, "sums[tile] = total"), (wgs, Some(wgs)));
    assert_eq!(counts(p, TILE, "// tile: add"), (wgs * g, Some(wgs * g)));
    assert_eq!(
        branch(p, TILE, "// tile: gather", "loop"),
        (wgs * (g + 1), 0)
    );

    // One lane record per execution of the branch's body, each naming its invocations.
    let capture = p.lanes.as_ref().expect("lanes recorded");
    assert_eq!(capture.line, weight);
    assert_eq!(capture.executions, wgs * runs);
    assert_eq!(capture.records.len() as u64, wgs * runs);
    let mut seen = BTreeSet::new();
    for r in &capture.records {
        let invocations = r
            .invocations
            .as_ref()
            .expect("a 2-D record names its lanes");
        assert_eq!(r.invocations_complete, Some(true), "{r:?}");
        let ballot: u32 = r.ballot.iter().map(|w| w.count_ones()).sum();
        assert_eq!(invocations.len() as u32, ballot, "{r:?}");
        let base = u64::from(r.first_local_index) / sg * sg;
        for lane in invocations {
            let [x, y, z] = lane.local_id;
            assert!(x < 3 && y < 8 && z == 0, "{r:?}");
            let index = u64::from(x + 8 * y);
            assert!((base..base + sg).contains(&index), "{r:?}");
            // The kernel checked that lane and local index run together; the lane is the
            // invocation's place in its subgroup, and its bit is in the ballot.
            let l = lane.lane.expect("lanes verified contiguous");
            assert_eq!(u64::from(l), index - base, "{r:?}");
            assert_ne!(r.ballot[(l / 32) as usize] & (1 << (l % 32)), 0, "{r:?}");
            assert!(seen.insert((r.workgroup, lane.local_id)), "{r:?} twice");
        }
    }
    assert_eq!(
        seen.len() as u64,
        wgs * 24,
        "every invocation of x < 3, once"
    );

    // The text output shows each lane's local id: lane 0 of the first record is (0, y).
    let text = render_text(p);
    assert!(text.contains("lane:local id 0:(0,"), "{text}");
    assert!(text.contains(" 2:(2,"), "{text}");
    let json = serde_json::to_value(p).unwrap();
    assert_eq!(json["lanes"]["records"][0]["invocations"][0]["lane"], 0);
}

/// A 1-D kernel's lane records carry no invocation list: its JSON is as it was.
#[test]
fn a_1d_lane_record_has_no_invocation_list() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
               @compute @workgroup_size(64)\n\
               fn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n\
               \x20   if (gid.x % 2u == 0u) {\n\
               \x20       out[gid.x] = 1u;\n\
               \x20   }\n\
               }\n";
    let p = profiled(src, |r| r.lanes_line = Some(5)).profile;
    let capture = p.lanes.as_ref().expect("lanes recorded");
    assert_eq!(capture.executions, 64 / subgroup_size(&p));
    for r in &capture.records {
        assert_eq!(
            (r.invocations.as_ref(), r.invocations_complete),
            (None, None)
        );
    }
    let json = serde_json::to_value(&p).unwrap();
    let record = json["lanes"]["records"][0].as_object().unwrap();
    let keys: BTreeSet<&str> = record.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        BTreeSet::from(["ballot", "first_local_index", "workgroup"])
    );
}

/// Each of the three entry points of one module, profiled on its own, over two workgroups of
/// 64 with `cells` = 0, 1, 2, ...:
/// - `clear`: every lane stores; invocation 0 alone resets the total (1 divergent subgroup);
/// - `step`: lanes with gid % 4 < 2 (half of every subgroup) call `bump`, where gid % 4 = 0
///   (a quarter) is even and halves and gid % 4 = 1 is odd: both branches diverge in every
///   subgroup;
/// - `reduce`: local index 0 of each workgroup sums 64 cells in a loop, one lane.
#[test]
fn each_entry_point_of_a_three_entry_module_profiles() {
    let entry = |name: &str| {
        profiled(THREE, |r| {
            r.entry = Some(name.to_owned());
            r.dispatch = [2, 1, 1];
            r.buffers = vec!["cells=iota".parse::<BufferSpec>().unwrap()];
        })
        .profile
    };
    assert!(
        THREE.starts_with("// divlab-profile: --entry step --dispatch 2 --buffer cells=iota\n")
    );

    let p = entry("clear");
    assert_clean(&p);
    let sg = subgroup_size(&p);
    let subgroups = 128 / sg;
    assert_eq!(p.kernel.entry, "clear");
    assert_eq!(counts(&p, THREE, "// clear: store"), (subgroups, Some(128)));
    assert_eq!(branch(&p, THREE, "// clear: first", "if"), (subgroups, 1));
    assert_eq!(counts(&p, THREE, "// clear: reset"), (1, Some(1)));
    assert!(p.timing.is_some(), "the plain kernel ran too");

    let p = entry("step");
    assert_clean(&p);
    assert_eq!(p.kernel.entry, "step");
    assert_eq!(counts(&p, THREE, "// step: index"), (subgroups, Some(128)));
    assert_eq!(
        branch(&p, THREE, "// step: branch", "if"),
        (subgroups, subgroups)
    );
    assert_eq!(counts(&p, THREE, "// step: then"), (subgroups, Some(64)));
    // `bump` runs from the branch's body: its body's counts are that block's.
    assert_eq!(counts(&p, THREE, "// bump: even"), (subgroups, Some(64)));
    assert_eq!(
        branch(&p, THREE, "// bump: even", "if"),
        (subgroups, subgroups)
    );
    assert_eq!(counts(&p, THREE, "// bump: half"), (subgroups, Some(32)));
    assert_eq!(counts(&p, THREE, "// bump: odd"), (subgroups, Some(32)));
    assert!(p.timing.is_some(), "the plain kernel ran too");

    let p = entry("reduce");
    assert_clean(&p);
    assert_eq!(p.kernel.entry, "reduce");
    assert_eq!(branch(&p, THREE, "// reduce: leader", "if"), (subgroups, 2));
    assert_eq!(counts(&p, THREE, "atomicAdd(&total, s)"), (2, Some(2)));
    assert_eq!(counts(&p, THREE, "// reduce: add"), (128, Some(128)));
    assert_eq!(branch(&p, THREE, "// reduce: sum", "loop"), (2 * 65, 0));
    // `clear` and `step` are not run: their lines have no counts.
    assert!(
        p.lines
            .iter()
            .all(|l| l.line != line_of(THREE, "// clear: store"))
    );
    assert!(p.timing.is_some(), "the plain kernel ran too");
}

/// Two nested loops bounded by a uniform's fields (4e9 each) end at the cap, which bounds all
/// the loop trips of an invocation together: the outer loop's first trip (1), then 999 trips of
/// the inner loop's body; the inner loop's 1000th trip is the 1001st of the invocation and
/// crosses the cap of 1000, so the cap is reported there, and the outer loop's next trip breaks
/// out too. Each subgroup ran the body 999 times with every lane, and the statement after the
/// nest once.
#[test]
fn nested_input_bound_loops_end_at_one_cap_for_all_loops() {
    let finished = profiled(NESTED, |r| {
        r.loop_cap = 1000;
        r.buffers = vec![
            "params=values:4000000000,4000000000"
                .parse::<BufferSpec>()
                .unwrap(),
        ];
        r.lens = vec![(BindingRef::Name("out".to_owned()), 64)];
    });
    assert!(NESTED.starts_with(
        "// divlab-profile: --buffer params=values:4000000000,4000000000 --loop-cap 1000\n"
    ));
    let p = &finished.profile;
    let subgroups = 64 / subgroup_size(p);
    assert!(p.loop_cap_hit);
    assert_eq!(p.loop_cap, 1000);
    assert_eq!(p.loop_cap_line, Some(line_of(NESTED, "// nest: cols")));
    assert!(p.timing.is_none());
    let message = finished.cap_hit.expect("the cap was hit");
    assert!(
        message.contains(&format!("test.wgsl:{}", line_of(NESTED, "// nest: cols")))
            && message.contains("1000 loop iterations in all"),
        "{message}"
    );
    assert_eq!(
        counts(p, NESTED, "// nest: body"),
        (999 * subgroups, Some(999 * 64))
    );
    assert_eq!(counts(p, NESTED, "// nest: after"), (subgroups, Some(64)));
}

/// `@workgroup_size(1)` over 8 workgroups: every subgroup has one active lane, so the widest
/// ballot is 1, but the `subgroup_size` builtin the kernel sees is the pipeline's width. The
/// Collatz steps of 1..8 are 0, 1, 7, 2, 5, 8, 16, 3: 42 trips, one lane each.
#[test]
fn one_invocation_workgroups_report_the_real_subgroup_width() {
    let finished = profiled(ONE, |r| r.dispatch = [8, 1, 1]);
    assert!(ONE.starts_with("// divlab-profile: --dispatch 8\n"));
    let p = &finished.profile;
    assert_clean(p);
    assert_eq!(p.widest_ballot, Some(1), "the widest ballot");
    assert_eq!(
        p.subgroup_size, finished.subgroup_width,
        "efficiency's width"
    );
    assert_eq!(
        finished.subgroup_width,
        Some(util::expected_subgroup_size()),
        "the subgroup_size builtin"
    );
    assert_eq!(counts(p, ONE, "// collatz: step"), (42, Some(42)));
    assert_eq!(counts(p, ONE, "var n ="), (8, Some(8)));
}

/// A 64-invocation kernel sees the same width as its widest ballot.
#[test]
fn a_full_subgroup_reports_its_width_as_its_widest_ballot() {
    let finished = profiled(THREE, |r| {
        r.entry = Some("clear".to_owned());
        r.dispatch = [2, 1, 1];
    });
    assert_eq!(finished.subgroup_width, finished.profile.subgroup_size);
    assert_eq!(
        finished.subgroup_width,
        Some(util::expected_subgroup_size())
    );
}

/// `source` profiled with `params=values:PARAMS` and 64 elements of `out`, one workgroup of 64:
/// its profile, and the subgroups of the workgroup.
fn looped(source: &str, params: &str) -> (Profile, u64) {
    let finished = profiled(source, |r| {
        r.buffers = vec![
            format!("params=values:{params}")
                .parse::<BufferSpec>()
                .unwrap(),
        ];
        r.lens = vec![(BindingRef::Name("out".to_owned()), 64)];
    });
    let subgroups = 64 / subgroup_size(&finished.profile);
    (finished.profile, subgroups)
}

/// On llvmpipe, a run whose loops outran llvmpipe's limit: the cap fired, lowered below `below`
/// with the note that says why.
fn assert_cap_lowered_on_llvmpipe(p: &Profile, below: u32) {
    if !p.adapter.name.contains("llvmpipe") {
        return;
    }
    assert!(p.loop_cap_hit, "{:#?}", p.lines);
    assert!(p.loop_cap < below, "the cap lowered: {}", p.loop_cap);
    let note = "ran out before a higher cap fired";
    assert!(p.notes.iter().any(|n| n.contains(note)), "{:#?}", p.notes);
}

/// A nest of 20,000 outer trips with one inner trip each: 60,000 trips of the kernel's own
/// loops, and 40,000 more rounds of divlab's after each inner loop. llvmpipe ends the loops of
/// an invocation after 65,535 iterations in all, silently; the profile must then report the
/// cap, never counts cut short without a word. Elsewhere every trip is counted.
#[test]
fn a_loop_nest_is_never_cut_short_silently() {
    let (p, subgroups) = looped(NESTED, "20000,1");
    if p.adapter.name.contains("llvmpipe") {
        assert!(p.loop_cap_hit, "{:#?}", p.lines);
    }
    if !p.loop_cap_hit {
        assert_eq!(
            counts(&p, NESTED, "// nest: body"),
            (20_000 * subgroups, Some(20_000 * 64))
        );
    }
}

/// Six nested loops of `params.n` trips, 7^6 = 117,649 trips of the innermost per invocation:
/// past llvmpipe's limit, and deep enough that divlab's rounds after each loop exit (passes
/// to llvmpipe, not all trips to the cap) used up llvmpipe's limit before a cap of 64,510
/// fired. Here, not in `kernels/profile/`: the GL sweep there would compare its counts with a
/// run under another cap.
const DEEP: &str = "struct Params { n: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var x = gid.x;
    for (var a = 0u; a < params.n; a++) { // deep: 1
        for (var b = 0u; b < params.n; b++) { // deep: 2
            for (var c = 0u; c < params.n; c++) { // deep: 3
                for (var d = 0u; d < params.n; d++) { // deep: 4
                    for (var e = 0u; e < params.n; e++) { // deep: 5
                        for (var f = 0u; f < params.n; f++) { // deep: 6
                            x = x * 1664525u + 1013904223u; // deep: body
                        }
                    }
                }
            }
        }
    }
    out[gid.x] = x;
}
";

/// However deep the nest, a run cut short says so: on llvmpipe the cap fires (lowered until
/// it fires before llvmpipe's own limit), and everywhere each loop was entered once per trip
/// of the loop around it, so no loop's counts stop where nothing says.
#[test]
fn a_deep_loop_nest_is_never_cut_short_silently() {
    let (profile, subgroups) = looped(DEEP, "7");
    let p = &profile;
    assert_cap_lowered_on_llvmpipe(p, 64_510);
    let trips = |marker: &str| {
        let n = line_of(DEEP, marker);
        let b = p.branches.iter().find(|b| b.line == n && b.kind == "loop");
        b.and_then(|b| b.trips)
            .unwrap_or_else(|| panic!("{marker}: {:#?}", p.branches))
    };
    for depth in 1..6 {
        let (outer, inner) = (
            format!("// deep: {depth}"),
            format!("// deep: {}", depth + 1),
        );
        assert_eq!(
            counts(p, DEEP, &inner).0,
            trips(&outer),
            "loop {} is entered once per trip of loop {depth}",
            depth + 1
        );
    }
    assert_eq!(counts(p, DEEP, "// deep: body").0, trips("// deep: 6"));
    if !p.loop_cap_hit {
        assert_eq!(counts(p, DEEP, "// deep: body").0, 117_649 * subgroups);
    }
}

/// Two loops of `params.n` trips, the first taken by even lanes, the second by odd ones: 40,000
/// trips for each invocation, under the cap, but 80,000 passes for a subgroup, which is what
/// llvmpipe counts toward its limit.
const ALTERNATING: &str = "struct Params { n: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    var x = li;
    let even = li % 2u == 0u;
    for (var i = 0u; i < select(0u, params.n, even); i++) {
        x = x * 1664525u + 1013904223u; // alternating: even
    }
    for (var i = 0u; i < select(params.n, 0u, even); i++) {
        x = x ^ (x >> 3u); // alternating: odd
    }
    out[li] = x;
}
";

/// Loops that lanes take in turn are counted whole, or the run says it was cut: llvmpipe counts
/// a subgroup's passes, its lanes' together, where the cap counts one invocation's trips.
#[test]
fn loops_that_lanes_take_in_turn_are_never_cut_short_silently() {
    let (profile, subgroups) = looped(ALTERNATING, "40000");
    let p = &profile;
    let [even, odd] =
        ["even", "odd"].map(|side| counts(p, ALTERNATING, &format!("// alternating: {side}")));
    assert_cap_lowered_on_llvmpipe(p, 40_000);
    if p.adapter.name.contains("llvmpipe") {
        // Every lane ran its own loop up to the cap, less divlab's rounds after the first.
        let half = 64 / 2;
        assert_eq!(even.1, Some(half * u64::from(p.loop_cap)), "{even:?}");
        assert!(
            odd.1
                .is_some_and(|l| l > half * (u64::from(p.loop_cap) - 64)),
            "{odd:?}"
        );
    } else {
        assert!(!p.loop_cap_hit);
        assert_eq!(even, (40_000 * subgroups, Some(40_000 * 32)));
        assert_eq!(odd, (40_000 * subgroups, Some(40_000 * 32)));
    }
}

/// `n` `if`s nested one in another around a store, each holding back one more lane of a
/// workgroup of 128, so the store runs on 128 - n lanes.
fn nested_ifs(n: u64) -> String {
    let mut s = String::from(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(128)\n\
         fn main(@builtin(local_invocation_index) i: u32) {\n",
    );
    for d in 0..n {
        s += &format!("if i != {d}u {{\n");
    }
    s += "out[i] = 1u; // nested: store\n";
    s += &"}\n".repeat(n as usize + 1);
    s
}

/// llvmpipe applies 80 nested conditions; a deeper one holds no lane back (gallivm's mask
/// stack), so 90 nested `if`s run their store on lanes whose conditions were false. A line
/// that deep is counted as llvmpipe ran it, with a note that names it; never silently.
/// Elsewhere, and at 60 deep everywhere, the count is exact.
#[test]
fn conditions_nested_past_llvmpipes_limit_are_counted_right_or_named_in_a_note() {
    for n in [60, 90] {
        let source = nested_ifs(n);
        let finished = profiled(&source, |r| {
            r.lens = vec![(BindingRef::Name("out".to_owned()), 128)];
        });
        let p = &finished.profile;
        let lanes = counts(p, &source, "// nested: store").1;
        let line = line_of(&source, "// nested: store");
        let note = (p.notes.iter()).find(|n| n.contains("llvmpipe applies only 80 nested"));
        match note {
            Some(note) => {
                assert!(n > 79, "a note at {n} deep: {note}");
                assert!(
                    note.contains(&format!("line {line} sits inside up to {n} ")),
                    "{note}"
                );
            }
            None => assert_eq!(lanes, Some(128 - n), "{n} deep: {:#?}", p.notes),
        }
        if n == 90 && p.adapter.name.contains("llvmpipe") {
            assert!(note.is_some(), "{:#?}", p.notes);
        }
    }
}

/// A `switch` of 100 cases on the local index of 64 lanes: each lane takes its own case and
/// none the default. llvmpipe tests the cases one inside another, and past its 80 nested
/// conditions counted a lane in the default: the count is exact, or a note names the default.
#[test]
fn a_switch_of_100_cases_is_counted_right_or_named_in_a_note() {
    let mut source = String::from(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(local_invocation_index) i: u32) {\n\
         switch i {\n",
    );
    for k in 0..100 {
        source += &format!("case {k}u {{ out[i] = {k}u; }}\n");
    }
    source += "default { out[i] = 7u; } // switch: default\n}\n}\n";
    let finished = profiled(&source, |r| {
        r.lens = vec![(BindingRef::Name("out".to_owned()), 64)];
    });
    let p = &finished.profile;
    let line = line_of(&source, "// switch: default");
    let named = format!("line {line} sits inside up to 101 conditions");
    if !p.notes.iter().any(|n| n.contains(&named)) {
        assert!(!p.adapter.name.contains("llvmpipe"), "{:#?}", p.notes);
        assert_eq!(counts(p, &source, "// switch: default").0, 0);
        assert_eq!(counts(p, &source, "case 63u").1, Some(1));
    }
}

const LAYERS: &str = include_str!("../kernels/profile/layers_3d.wgsl");

/// A 3-D workgroup of 8x2x4 over 2 workgroups, a branch on `lid.z == 1` (local indices 16 to
/// 31), with `--lanes` at its body: each record names its lanes' (x, y, 1), and the text shows
/// all three coordinates.
#[test]
fn a_3d_workgroup_profiles_with_lane_ids() {
    let write = line_of(LAYERS, "// layers: write");
    let finished = profiled(LAYERS, |r| {
        r.dispatch = [2, 1, 1];
        r.lanes_line = Some(write);
    });
    assert!(LAYERS.starts_with(&format!(
        "// divlab-profile: --dispatch 2 --lanes {write}\n"
    )));
    let p = &finished.profile;
    assert_clean(p);
    assert_eq!(p.kernel.workgroup_size, [8, 2, 4]);
    let sg = subgroup_size(p);
    let (runs, lanes, evals, divergent) = branch_by_subgroup(sg, |i| i / 16 == 1);
    assert_eq!(
        counts(p, LAYERS, "// layers: top"),
        (2 * 64 / sg, Some(128))
    );
    assert_eq!(
        branch(p, LAYERS, "// layers: branch", "if"),
        (2 * evals, 2 * divergent)
    );
    assert_eq!(
        counts(p, LAYERS, "// layers: write"),
        (2 * runs, Some(2 * lanes))
    );
    let capture = p.lanes.as_ref().expect("lanes recorded");
    assert_eq!(capture.records.len() as u64, 2 * runs);
    let mut seen = BTreeSet::new();
    for r in &capture.records {
        let base = u64::from(r.first_local_index) / sg * sg;
        for lane in r
            .invocations
            .as_ref()
            .expect("a 3-D record names its lanes")
        {
            let [x, y, z] = lane.local_id;
            assert!(x < 8 && y < 2 && z == 1, "{r:?}");
            let index = u64::from(x + 8 * y + 16 * z);
            assert_eq!(lane.lane.map(u64::from), Some(index - base), "{r:?}");
            assert!(seen.insert((r.workgroup, lane.local_id)), "{r:?} twice");
        }
    }
    assert_eq!(seen.len(), 2 * 16, "every invocation of layer 1, once");
    let text = render_text(p);
    assert!(text.contains(":(0,0,1)"), "{text}");
}

/// The same kernel 4 invocations wide (4x2x4, 32 per workgroup): a device may give each row a
/// subgroup of its own, half empty (lavapipe does, at width 8), so the widest ballot can be
/// below the subgroup width. Whatever the layout, the `subgroup_size` builtin is the device's
/// width, the lanes at each line add up to the invocations that ran it (64 at the top, 2 x 8 in
/// layer 1), and the lane records name each invocation of layer 1 once, with as many
/// invocations as ballot bits.
#[test]
fn a_workgroup_narrower_than_a_subgroup_keeps_its_real_width() {
    let write = line_of(LAYERS, "// layers: write");
    let finished = profiled(LAYERS, |r| {
        r.dispatch = [2, 1, 1];
        r.lanes_line = Some(write);
        r.overrides = vec![("WIDTH".to_owned(), 4.0)];
    });
    let p = &finished.profile;
    assert_clean(p);
    assert_eq!(p.kernel.workgroup_size, [4, 2, 4]);
    let width = finished.subgroup_width.expect("subgroups");
    assert_eq!(width, util::expected_subgroup_size());
    let widest = p.subgroup_size.expect("subgroups");
    assert!(widest <= width, "widest ballot {widest}, width {width}");
    assert_eq!(counts(p, LAYERS, "// layers: top").1, Some(64));
    assert_eq!(counts(p, LAYERS, "// layers: write").1, Some(16));
    let capture = p.lanes.as_ref().expect("lanes recorded");
    let mut seen = BTreeSet::new();
    for r in &capture.records {
        let invocations = r
            .invocations
            .as_ref()
            .expect("a 3-D record names its lanes");
        let ballot: u32 = r.ballot.iter().map(|w| w.count_ones()).sum();
        assert_eq!(invocations.len() as u32, ballot, "{r:?}");
        for lane in invocations {
            let [x, y, z] = lane.local_id;
            assert!(x < 4 && y < 2 && z == 1, "{r:?}");
            assert!(seen.insert((r.workgroup, lane.local_id)), "{r:?} twice");
        }
    }
    assert_eq!(seen.len(), 2 * 8, "every invocation of layer 1, once");
}
