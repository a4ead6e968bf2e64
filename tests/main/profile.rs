//! `divlab profile` on real kernels through lavapipe. Every expected figure is derived here by
//! hand from the kernel and holds for any subgroup size of at least 4 that divides the
//! workgroup: the subgroup size itself is read from the profile and checked against the device.

use std::path::Path;
use std::time::{Duration, Instant};

use divlab::experiments::Lab;
use divlab::profile::fill::{BindingRef, BufferSpec};
use divlab::profile::report::{LineProfile, Profile};
use divlab::profile::run::{Finished, Request, profile};
use divlab::shaders::divergence::{Form, Selection};

use crate::util;
use crate::util::{branch, divlab, line, line_of, path_in, run, temp_dir};

/// Profiles `source` on the default adapter with the request `configure` sets up.
fn profiled(source: &str, configure: impl FnOnce(&mut Request)) -> Finished {
    util::profiled_as("test.wgsl", source, 3, configure)
}

/// The profile's subgroup size, checked against the device's, and the subgroup count of a
/// 64-invocation workgroup.
fn subgroups_of_64(p: &Profile) -> (u32, u64) {
    let sg = p.subgroup_size.expect("lavapipe has subgroups");
    assert_eq!(sg, util::expected_subgroup_size());
    assert!(sg >= 4 && 64 % sg == 0);
    (sg, u64::from(64 / sg))
}

fn assert_close(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap_or_else(|| panic!("{what}: absent"));
    assert!((got - want).abs() < 1e-9, "{what}: {got}, expected {want}");
}

fn assert_no_divlab_bug(p: &Profile) {
    assert!(
        !p.notes.iter().any(|n| n.contains("divlab bug")),
        "{:#?}",
        p.notes
    );
}

const LANE_MOD_4: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x % 4u == 0u) { // branch
        out[gid.x] = 1u; // then
    }
}
";

/// A quarter of every subgroup takes the branch: the then-block runs once per subgroup with
/// SG/4 lanes (efficiency 1/4), and every subgroup's lanes disagree (100% divergent).
#[test]
fn a_branch_on_lane_mod_4_runs_a_quarter_of_each_subgroup() {
    let p = profiled(LANE_MOD_4, |_| {}).profile;
    let (sg, subgroups) = subgroups_of_64(&p);
    let then = line(&p, line_of(LANE_MOD_4, "// then"));
    assert_eq!(then.executions, subgroups);
    assert_eq!(then.active_lanes, Some(16));
    assert_close(then.efficiency, 0.25, "then-block efficiency");
    let b = branch(&p, line_of(LANE_MOD_4, "// branch"), "if");
    assert_eq!((b.executions, b.divergent), (subgroups, subgroups));
    assert_close(b.divergent_fraction, 1.0, "divergent fraction");
    assert_eq!(
        b.wasted_lane_slots,
        Some(subgroups * u64::from(sg) - 16),
        "the then-block's idle lane slots"
    );
    assert!(!p.loop_cap_hit);
    let timing = p.timing.as_ref().expect("a finished kernel is timed");
    assert!(timing.kernel_ns > 0.0 && timing.instrumented_ns > 0.0);
    assert_no_divlab_bug(&p);
}

const WORKGROUP_BRANCH: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    if (wid.x == 1u) { // branch
        out[gid.x] = 1u; // then
    }
}
";

/// A branch on the workgroup number: all of workgroup 1 takes it, none of workgroup 0, so each
/// subgroup is whole on its side: efficiency 1, never divergent.
#[test]
fn a_branch_on_the_workgroup_never_diverges() {
    let p = profiled(WORKGROUP_BRANCH, |r| r.dispatch = [2, 1, 1]).profile;
    let (_, subgroups) = subgroups_of_64(&p);
    let then = line(&p, line_of(WORKGROUP_BRANCH, "// then"));
    assert_eq!(then.executions, subgroups);
    assert_close(then.efficiency, 1.0, "then-block efficiency");
    let b = branch(&p, line_of(WORKGROUP_BRANCH, "// branch"), "if");
    assert_eq!((b.executions, b.divergent), (2 * subgroups, 0));
    assert_close(b.divergent_fraction, 0.0, "divergent fraction");
    assert_no_divlab_bug(&p);
}

const PER_LANE_TRIPS: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    var acc = 0u;
    for (var i = 0u; i < lid % 4u + 1u; i++) { // loop
        acc += i; // body
    }
    out[gid.x] = acc;
}
";

/// Lane l runs l % 4 + 1 trips. Trip 1 has every lane, trip 2 three quarters, trip 3 half,
/// trip 4 a quarter: 2.5·SG lanes over 4 executions, efficiency 2.5/4. The exit test runs 5
/// times per subgroup and the lanes disagree at trips 2, 3 and 4: 3/5 divergent.
#[test]
fn a_loop_with_per_lane_trips_has_the_efficiency_its_trips_imply() {
    let p = profiled(PER_LANE_TRIPS, |_| {}).profile;
    let (sg, subgroups) = subgroups_of_64(&p);
    let body = line(&p, line_of(PER_LANE_TRIPS, "// body"));
    assert_eq!(body.executions, 4 * subgroups);
    assert_eq!(body.active_lanes, Some(subgroups * u64::from(sg) * 5 / 2));
    assert_close(body.efficiency, 2.5 / 4.0, "loop-body efficiency");
    let l = branch(&p, line_of(PER_LANE_TRIPS, "// loop"), "loop");
    assert_eq!((l.executions, l.divergent), (5 * subgroups, 3 * subgroups));
    assert_close(l.divergent_fraction, 0.6, "loop divergent fraction");
    assert_no_divlab_bug(&p);
}

const TWO_LOOPS: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    var acc = 0u;
    for (var i = 0u; i < lid % 4u + 1u; i++) { // hoisted
        acc += i; // hoisted body
    }
    var j = 0u;
    loop { // counted
        if (j >= lid % 8u) { break; } // exit
        if (j % 2u == 0u) { // even trip
            acc += 1u; // even body
        }
        j++;
    }
    out[gid.x] = acc;
}
";

/// The counts of a loop can pass 2^32 only over enough invocations times the loop cap, and
/// only then do its counters take the 64-bit carry (kept after each add, taken after the last:
/// `divlab_old`). Every workgroup of this kernel does the same, so 1100 workgroups, past that
/// bound on lavapipe and the H200, count 550 times what 2 workgroups count, line by line.
#[test]
fn loop_counts_that_may_wrap_take_the_carry_and_still_add_up() {
    let small = profiled(TWO_LOOPS, |r| r.dispatch = [2, 1, 1]);
    let large = profiled(TWO_LOOPS, |r| r.dispatch = [1100, 1, 1]);
    assert!(!small.instrumented_wgsl.contains("divlab_old"));
    assert!(large.instrumented_wgsl.contains("divlab_old"));
    let (p, q) = (&small.profile, &large.profile);
    assert_eq!(p.lines.len(), q.lines.len());
    for (a, b) in p.lines.iter().zip(&q.lines) {
        assert_eq!(b.executions, 550 * a.executions, "line {}", a.line);
        assert_eq!(
            b.active_lanes,
            a.active_lanes.map(|n| 550 * n),
            "line {}",
            a.line
        );
    }
    for (a, b) in p.branches.iter().zip(&q.branches) {
        assert_eq!(b.executions, 550 * a.executions, "{} at {}", a.kind, a.line);
        assert_eq!(b.divergent, 550 * a.divergent, "{} at {}", a.kind, a.line);
    }
    // Lane l runs l % 8 trips of the counted loop, ⌈(l % 8) / 2⌉ of them even.
    let even = line(p, line_of(TWO_LOOPS, "// even body"));
    let even_lanes: u64 = (0..64u64).map(|l| (l % 8).div_ceil(2)).sum();
    assert_eq!(even.active_lanes, Some(2 * even_lanes));
}

const NESTED_TRIPS: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    var acc = 0u;
    for (var r = 0u; r < 2u; r++) { // outer
        for (var i = 0u; i < lid % 4u + 1u; i++) { // inner
            acc += i; // body
        }
    }
    out[gid.x] = acc;
}
";

/// Both loops leave only by their tests, so both are counted after they end: the outer one
/// straight into the counters, the inner one (run twice per invocation) in the private counts.
/// Each outer trip repeats the per-lane-trips figures: 4 body executions with 2.5·SG lanes, 5
/// test evaluations of which 3 divergent. The outer test runs 3 times and never diverges.
#[test]
fn nested_loops_are_counted_after_each_ends() {
    let p = profiled(NESTED_TRIPS, |_| {}).profile;
    let (sg, subgroups) = subgroups_of_64(&p);
    let body = line(&p, line_of(NESTED_TRIPS, "// body"));
    assert_eq!(body.executions, 2 * 4 * subgroups);
    assert_eq!(
        body.active_lanes,
        Some(2 * subgroups * u64::from(sg) * 5 / 2)
    );
    let inner = branch(&p, line_of(NESTED_TRIPS, "// inner"), "loop");
    assert_eq!(
        (inner.executions, inner.divergent),
        (2 * 5 * subgroups, 2 * 3 * subgroups)
    );
    let outer = branch(&p, line_of(NESTED_TRIPS, "// outer"), "loop");
    assert_eq!((outer.executions, outer.divergent), (3 * subgroups, 0));
    assert_no_divlab_bug(&p);
}

const AND_CHAIN: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let stop = lid % 4u;
    let why = (lid / 4u) % 3u;
    var i = 0u;
    while (i + select(0u, 99u, why != 0u) != stop && i + select(0u, 99u, why != 1u) != stop && i + select(0u, 99u, why != 2u) != stop) { // loop
        i += 1u; // body
    }
    out[lid] = i;
}
";

/// A `while` of three operands joined by `&&` is counted after it ends, as a loop that leaves
/// only by its test: lane `l` leaves at its test `l % 4 + 1`, when operand `(l / 4) % 3` is
/// false. Every count is the one a trip-by-trip walk of the lanes of each subgroup (lane `l`
/// of the workgroup in subgroup `l / SG`) gives, with both `&&` links counted on their sides:
/// evaluated by every lane at every test; the first link rejects where operand 0 fails, the
/// second where operand 0 or 1 fails.
#[test]
fn a_test_of_ands_is_counted_after_its_loop_as_its_trips_imply() {
    let finished = profiled(AND_CHAIN, |_| {});
    assert!(
        finished.instrumented_wgsl.contains("divlab_failed"),
        "the loop is hoisted"
    );
    let p = &finished.profile;
    let (sg, subgroups) = subgroups_of_64(p);
    let sg = u64::from(sg);
    // (executions, active lanes) of every block, summed over the workgroup's subgroups.
    let mut blocks = [(0u64, 0u64); 7];
    let (mut tests, mut splits, mut lane_trips) = (0u64, 0u64, 0u64);
    let mut add = |block: usize, lanes: u64| {
        if lanes > 0 {
            blocks[block].0 += 1;
            blocks[block].1 += lanes;
        }
    };
    for group in 0..subgroups {
        let lanes: Vec<(u64, u64)> = (group * sg..(group + 1) * sg)
            .map(|l| (l % 4 + 1, (l / 4) % 3))
            .collect();
        add(0, sg); // the function body
        let most = lanes.iter().map(|&(t, _)| t).max().unwrap();
        for k in 1..=most {
            let here: Vec<_> = lanes.iter().filter(|&&(t, _)| t >= k).collect();
            // Operand `j` of lane (t, why) is false at its last test when `why == j`.
            let holds = |j: u64, &&(t, why): &&(u64, u64)| !(k == t && why <= j);
            for link in 0..2 {
                let accept = here.iter().filter(|l| holds(link, l)).count() as u64;
                add(1 + 2 * link as usize, accept);
                add(2 + 2 * link as usize, here.len() as u64 - accept);
            }
            let stay = here.iter().filter(|&&&(t, _)| k < t).count() as u64;
            add(5, stay); // the body
            add(6, here.len() as u64 - stay); // the exit's `break`
            tests += 1;
            splits += u64::from(stay > 0 && stay < here.len() as u64);
            lane_trips += stay;
        }
    }
    let (lanes, executions) = blocks.iter().fold((0, 0), |(l, e), &(x, a)| (l + a, e + x));
    assert_close(
        p.control_flow_efficiency,
        lanes as f64 / (executions * sg) as f64,
        "control-flow efficiency",
    );
    let body = line(p, line_of(AND_CHAIN, "// body"));
    assert_eq!(
        (body.executions, body.active_lanes),
        (blocks[5].0, Some(blocks[5].1))
    );
    let l = branch(p, line_of(AND_CHAIN, "// loop"), "loop");
    assert_eq!((l.executions, l.divergent), (tests, splits));
    assert_eq!(
        (l.trips, l.lane_trips),
        (Some(blocks[5].0), Some(lane_trips))
    );
    assert_eq!(l.wasted_lane_slots, Some(blocks[5].0 * sg - lane_trips));
    assert_no_divlab_bug(p);
}

const IF_IN_HOISTED_LOOP: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var acc = 0u;
    for (var i = 0u; i < lid % 4u + 1u; i++) { // loop
        if ((i + lid / 2u) % 2u == 0u) { // parity
            acc += 1u; // even
        } else {
            acc += 2u; // odd
        }
    }
    out[lid] = acc;
}
";

/// An `if` at the top of a loop counted after it ends is counted from its votes at each trip:
/// its figures are those of a trip-by-trip walk of each subgroup's lanes (lane `l` runs trips
/// `0..l % 4 + 1` and takes the accept side at trip `i` when `(i + l / 2) % 2 == 0`).
#[test]
fn an_if_in_a_hoisted_loop_has_the_counts_of_its_trips() {
    let finished = profiled(IF_IN_HOISTED_LOOP, |_| {});
    assert!(
        finished.instrumented_wgsl.contains("divlab_trips0"),
        "hoisted"
    );
    let p = &finished.profile;
    let (sg, subgroups) = subgroups_of_64(p);
    let sg = u64::from(sg);
    let (mut evaluations, mut divergent) = (0, 0);
    let mut sides = [(0u64, 0u64); 2];
    for group in 0..subgroups {
        for i in 0..4 {
            let here: Vec<u64> = (group * sg..(group + 1) * sg)
                .filter(|l| l % 4 + 1 > i)
                .collect();
            let even = here.iter().filter(|&&l| (i + l / 2) % 2 == 0).count() as u64;
            let odd = here.len() as u64 - even;
            evaluations += u64::from(!here.is_empty());
            divergent += u64::from(even > 0 && odd > 0);
            for (side, lanes) in sides.iter_mut().zip([even, odd]) {
                side.0 += u64::from(lanes > 0);
                side.1 += lanes;
            }
        }
    }
    let b = branch(p, line_of(IF_IN_HOISTED_LOOP, "// parity"), "if");
    assert_eq!((b.executions, b.divergent), (evaluations, divergent));
    for (marker, (executions, lanes)) in ["// even", "// odd"].into_iter().zip(sides) {
        let side = line(p, line_of(IF_IN_HOISTED_LOOP, marker));
        assert_eq!(
            (side.executions, side.active_lanes),
            (executions, Some(lanes)),
            "{marker}"
        );
    }
    assert_no_divlab_bug(p);
}

const BREAK_IN_BODY: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var i = 0u;
    loop {
        if i >= lid % 4u { // exit
            break;
        }
        if (i & 1u) == 0u { // parity
            out[lid] += 1u; // even
        }
        i += 1u;
    }
}
";

/// A loop left by a `break` in its body is not hoisted: its blocks count at every trip, in the
/// private counts flushed at exit. Lane l runs l % 4 trips (i = 0 .. l % 4 - 1) and checks the
/// exit at i = 0 ..= l % 4: 4 checks per subgroup, divergent at i = 0, 1, 2 (some lanes leave,
/// some stay). `even` runs at i = 0 (three quarters of the lanes) and i = 2 (a quarter): 2
/// executions with SG lanes in all, efficiency 1/2; the parity test never diverges.
#[test]
fn a_loop_left_by_a_break_counts_every_trip() {
    let p = profiled(BREAK_IN_BODY, |_| {}).profile;
    let (sg, subgroups) = subgroups_of_64(&p);
    let exit = branch(&p, line_of(BREAK_IN_BODY, "// exit"), "if");
    assert_eq!(
        (exit.executions, exit.divergent),
        (4 * subgroups, 3 * subgroups)
    );
    let even = line(&p, line_of(BREAK_IN_BODY, "// even"));
    assert_eq!(even.executions, 2 * subgroups);
    assert_eq!(even.active_lanes, Some(subgroups * u64::from(sg)));
    assert_close(even.efficiency, 0.5, "even efficiency");
    let parity = branch(&p, line_of(BREAK_IN_BODY, "// parity"), "if");
    assert_eq!((parity.executions, parity.divergent), (3 * subgroups, 0));
    assert_no_divlab_bug(&p);
}

const SWITCH_MOD_4: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    switch (gid.x % 4u) { // switch
        case 0u: {
            out[gid.x] = 10u; // case 0
        }
        case 1u: {
            out[gid.x] = 11u; // case 1
        }
        case 2u: {
            out[gid.x] = 12u; // case 2
        }
        default: {
            out[gid.x] = 13u; // default
        }
    }
}
";

/// Each case takes a quarter of every subgroup: efficiency 1/4 each, every evaluation divergent.
#[test]
fn a_switch_on_lane_mod_4_runs_each_case_with_a_quarter() {
    let p = profiled(SWITCH_MOD_4, |_| {}).profile;
    let (_, subgroups) = subgroups_of_64(&p);
    for marker in ["// case 0", "// case 1", "// case 2", "// default"] {
        let case = line(&p, line_of(SWITCH_MOD_4, marker));
        assert_eq!(case.executions, subgroups, "{marker}");
        assert_close(case.efficiency, 0.25, marker);
    }
    let s = branch(&p, line_of(SWITCH_MOD_4, "// switch"), "switch");
    assert_eq!((s.executions, s.divergent), (subgroups, subgroups));
    assert_no_divlab_bug(&p);
}

const LET_POINTER: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> seen: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let slot = &out[gid.x]; // let
    seen[gid.x] = 0u; // entry
    if (gid.x % 4u == 0u) { // branch
        let before = *slot; // read
        seen[gid.x] = before + *slot; // then
    }
    switch gid.x % 2u { // switch
        case 0u: { *slot += 1u; } // case 0
        default: {}
    }
}
";

/// naga gives the load of a `let` pointer (`*slot`) the `let`'s span, though it is evaluated in
/// the branch that uses it. Each line keeps its own block's counts: the `let`, the entry and
/// the branch lines every lane, the `if`'s body a quarter (its `let before = *slot;` found at
/// its `let`), the case half; and the `let` runs in uniform control flow. (The branches' bodies had taken the lines back to the `let`: every
/// entry line read a quarter of the lanes.)
#[test]
fn a_let_pointer_loaded_in_a_branch_leaves_each_line_its_own_counts() {
    let p = profiled(LET_POINTER, |_| {}).profile;
    let (_, subgroups) = subgroups_of_64(&p);
    for (marker, lanes) in [
        ("// let", 64),
        ("// entry", 64),
        ("// branch", 64),
        ("// read", 16),
        ("// then", 16),
        ("// switch", 64),
        ("// case 0", 32),
    ] {
        let l = line(&p, line_of(LET_POINTER, marker));
        assert_eq!(
            (l.executions, l.active_lanes),
            (subgroups, Some(lanes)),
            "{marker}"
        );
    }
    let slot = line(&p, line_of(LET_POINTER, "// let"));
    assert_eq!(slot.static_verdict.as_deref(), Some("uniform"));
    assert_no_divlab_bug(&p);
}

const SCALAR_SPLAT: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;

fn scaled(v: vec4<f32>, by: f32, lid: u32) -> vec4<f32> {
    var t = v; // copy
    if (lid % 2u == 0u) { // parity
        t = t / by; // halved
    }
    return t;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let r = f32(lid) + 1.0; // let
    var acc = vec4<f32>(0.0); // entry
    for (var j = 0u; j < lid % 4u; j++) { // loop
        acc -= r; // trip
    }
    out[lid] = scaled(acc, r, lid); // after
}
";

/// naga splats a scalar into a vector (`acc -= r`, `t / by`) with the span of the scalar's
/// `let` or parameter, though it evaluates the splat in the loop or branch: each line keeps
/// its own block's counts (the loop body had taken the lines back to the `let`, and the
/// helper's branch its whole body).
#[test]
fn a_scalar_splatted_in_a_loop_or_branch_leaves_each_line_its_own_counts() {
    let p = profiled(SCALAR_SPLAT, |_| {}).profile;
    let (sg, subgroups) = subgroups_of_64(&p);
    // lid % 4 trips: each run of 4 lanes runs 0 + 1 + 2 + 3 lane trips.
    let trip_lanes = 64 / 4 * 6;
    for (marker, lanes) in [
        ("// let", 64),
        ("// entry", 64),
        ("// loop", 64),
        ("// trip", trip_lanes),
        ("// after", 64),
        ("// copy", 64),
        ("// parity", 64),
        ("// halved", 32),
    ] {
        let l = line(&p, line_of(SCALAR_SPLAT, marker));
        assert_eq!(l.active_lanes, Some(lanes), "{marker}");
    }
    let trip = line(&p, line_of(SCALAR_SPLAT, "// trip"));
    assert_eq!(
        trip.executions,
        subgroups * 3,
        "the longest lanes run 3 trips, SG {sg}"
    );
    assert_no_divlab_bug(&p);
}

const STATEMENT_FILTER: &str = "\
enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    @diagnostic(off, subgroup_uniformity) if (gid.x % 4u == 0u) { // branch
        out[gid.x] = subgroupAdd(1u); // then
    }
}
";

/// A `@diagnostic` attribute on a statement is valid WGSL that naga 30 rejects ("not yet
/// implemented"): the kernel profiles, counted as without it, its report shows the line as
/// written, and the analysis honours the filter (without it, WGSL's rules reject the
/// `subgroupAdd` under a lane-dependent `if`, and a note says so).
#[test]
fn a_diagnostic_attribute_on_a_statement_is_honoured_not_refused() {
    let filtered = profiled(STATEMENT_FILTER, |_| {}).profile;
    let (_, subgroups) = subgroups_of_64(&filtered);
    let then = line(&filtered, line_of(STATEMENT_FILTER, "// then"));
    assert_eq!((then.executions, then.active_lanes), (subgroups, Some(16)));
    let b = branch(&filtered, line_of(STATEMENT_FILTER, "// branch"), "if");
    assert_eq!((b.executions, b.divergent), (subgroups, subgroups));
    let shown = filtered
        .source
        .as_deref()
        .expect("the report keeps the source");
    assert!(
        shown.contains("@diagnostic(off, subgroup_uniformity) if"),
        "{shown}"
    );
    let rejected = |p: &Profile| {
        p.notes
            .iter()
            .any(|n| n.contains("uniformity rules reject"))
    };
    assert!(!rejected(&filtered), "{:#?}", filtered.notes);
    let plain = STATEMENT_FILTER.replace("@diagnostic(off, subgroup_uniformity) ", "");
    let unfiltered = profiled(&plain, |_| {}).profile;
    assert!(rejected(&unfiltered), "{:#?}", unfiltered.notes);
    assert_no_divlab_bug(&filtered);
}

/// `--lanes` at each case: one record per subgroup, its ballot exactly the lanes whose
/// `gid.x % 4` picks the case (with subgroups laid out in order, lane i holds gid.x = base + i,
/// and every subgroup starts at a multiple of 4).
#[test]
fn lanes_at_a_case_are_the_lanes_that_chose_it() {
    for (case, marker) in ["// case 0", "// case 1", "// case 2", "// default"]
        .into_iter()
        .enumerate()
    {
        let at = line_of(SWITCH_MOD_4, marker);
        let p = profiled(SWITCH_MOD_4, |r| {
            r.dispatch = [2, 1, 1];
            r.lanes_line = Some(at);
        })
        .profile;
        let (sg, subgroups) = subgroups_of_64(&p);
        let lanes = p.lanes.as_ref().expect("lanes recorded");
        assert_eq!(lanes.line, at);
        assert_eq!(lanes.executions, 2 * subgroups, "{marker}");
        assert_eq!(lanes.records.len() as u64, 2 * subgroups);
        let mut expected = [0u32; 4];
        for lane in (0..sg).filter(|l| l % 4 == case as u32) {
            expected[(lane / 32) as usize] |= 1 << (lane % 32);
        }
        let mut starts = Vec::new();
        for r in &lanes.records {
            assert_eq!(r.ballot, expected, "{marker}: {r:?}");
            starts.push((r.workgroup[0], r.first_local_index));
        }
        // One record per subgroup of the two workgroups, first lanes at case + sg * k.
        let want: Vec<(u32, u32)> = (0..2)
            .flat_map(|wg| (0..64 / sg).map(move |k| (wg, k * sg + case as u32)))
            .collect();
        assert_eq!(starts, want, "{marker}");
    }
}

const BOUNDS_CHECK: &str = "\
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= arrayLength(&data)) { // check
        return; // past the end
    }
    data[gid.x] = gid.x * 2u; // store
}
";

/// 62 elements, 64 invocations: invocations 62 and 63 return. Both lie in the last subgroup,
/// with at least two lanes that stay (62 is not a multiple of 4), so exactly one subgroup
/// execution of the check diverges, for any subgroup size.
#[test]
fn an_early_return_past_the_end_diverges_in_exactly_one_subgroup() {
    let p = profiled(BOUNDS_CHECK, |r| {
        r.lens = vec![(BindingRef::Name("data".to_owned()), 62)];
    })
    .profile;
    let (sg, subgroups) = subgroups_of_64(&p);
    let check = branch(&p, line_of(BOUNDS_CHECK, "// check"), "if");
    assert_eq!((check.executions, check.divergent), (subgroups, 1));
    let returned = line(&p, line_of(BOUNDS_CHECK, "// past the end"));
    assert_eq!((returned.executions, returned.active_lanes), (1, Some(2)));
    let store = line(&p, line_of(BOUNDS_CHECK, "// store"));
    assert_eq!(store.active_lanes, Some(62));
    assert_eq!(store.executions, subgroups);
    assert_close(
        store.efficiency,
        62.0 / (subgroups as f64 * f64::from(sg)),
        "store efficiency",
    );
    assert_no_divlab_bug(&p);
}

const ENDLESS: &str = "\
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    loop { // spin
        if (data[0] == 7u) {
            break;
        }
        data[lid + 1u] += 1u;
    }
}
";

/// A loop that never ends on zeroed input stops at the cap: the run reports the loop's line and
/// the cap, is not timed, and the instrumented kernel ran each invocation exactly `cap` trips.
#[test]
fn an_endless_loop_stops_at_the_cap() {
    let finished = profiled(ENDLESS, |r| {
        r.loop_cap = 1000;
        r.buffers = vec!["data=zeros".parse::<BufferSpec>().unwrap()];
        r.lens = vec![(BindingRef::Name("data".to_owned()), 65)];
    });
    let p = &finished.profile;
    let spin = line_of(ENDLESS, "// spin");
    assert!(p.loop_cap_hit);
    assert_eq!(p.loop_cap_line, Some(spin));
    assert!(p.timing.is_none());
    assert!(
        p.outputs.is_none(),
        "the kernel alone may not end: it never runs"
    );
    let message = finished.cap_hit.expect("the cap was hit");
    assert!(
        message.contains(&format!("test.wgsl:{spin}")) && message.contains("1000"),
        "{message}"
    );
    let (_, subgroups) = subgroups_of_64(p);
    let body = line(p, line_of(ENDLESS, "data[lid + 1u]"));
    assert_eq!(body.executions, 1000 * subgroups);
}

/// The same endless loop through the CLI: exit 1, the message at the loop's line, in seconds.
#[test]
fn cli_profile_of_an_endless_loop_exits_1_with_the_line() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let file = path_in(&dir, "endless.wgsl");
    std::fs::write(&file, ENDLESS).unwrap();
    let json = path_in(&dir, "profile.json");
    let start = Instant::now();
    let mut cmd = divlab(dir.path());
    cmd.args(["profile", "endless.wgsl", "--loop-cap", "1000"])
        .args(["--buffer", "data=zeros", "--len", "data=65", "--json"])
        .arg(&json);
    let out = run(cmd);
    out.assert_code(1);
    assert!(start.elapsed() < Duration::from_secs(60), "{out}");
    let spin = line_of(ENDLESS, "// spin");
    assert!(
        out.stderr.contains(&format!(
            "endless.wgsl:{spin}: an invocation hit the loop cap in the loop here, after 1000"
        )),
        "{out}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["loop_cap_hit"], true);
    assert_eq!(doc["loop_cap_line"], spin);
}

/// The JSON the issue documents: every field, with the figures the text shows.
#[test]
fn cli_profile_writes_the_documented_json() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    std::fs::write(path_in(&dir, "k.wgsl"), LANE_MOD_4).unwrap();
    let json = path_in(&dir, "p.json");
    let emitted = path_in(&dir, "instrumented.wgsl");
    let mut cmd = divlab(dir.path());
    cmd.args(["profile", "k.wgsl", "--reps", "3", "--json"])
        .arg(&json)
        .arg("--emit-instrumented")
        .arg(&emitted);
    let out = run(cmd);
    out.assert_code(0);
    assert_eq!(
        out.stdout
            .matches("the counters are subgroup operations")
            .count(),
        1,
        "the observer effect is said once\n{out}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for field in [
        "schema_version",
        "adapter",
        "subgroup_size",
        "control_flow_efficiency",
        "lines",
        "branches",
        "loop_cap_hit",
        "timing",
    ] {
        assert!(doc.get(field).is_some(), "no `{field}` in {doc:#}");
    }
    assert_eq!(doc["kernel"]["file"], "k.wgsl");
    assert_eq!(doc["kernel"]["entry"], "main");
    assert_eq!(
        doc["kernel"]["workgroup_size"],
        serde_json::json!([64, 1, 1])
    );
    assert_eq!(doc["kernel"]["dispatch"], serde_json::json!([1, 1, 1]));
    assert!(doc["timing"]["kernel_ns"].as_f64().unwrap() > 0.0);
    assert!(doc["timing"]["instrumented_ns"].as_f64().unwrap() > 0.0);
    let then = line_of(LANE_MOD_4, "// then");
    let then_line = doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["line"] == then)
        .expect("the then line is profiled");
    assert_eq!(then_line["efficiency"], 0.25);
    assert_eq!(then_line["static"], "non-uniform");
    let instrumented = std::fs::read_to_string(&emitted).unwrap();
    assert!(instrumented.contains("divlab_counters"), "{instrumented}");
    divlab::shaders::check_wgsl("instrumented.wgsl", &instrumented)
        .unwrap_or_else(|e| panic!("the emitted WGSL does not parse: {e}"));
}

/// Without subgroup operations a profile still counts executions, per invocation, and says why
/// efficiency is absent instead of making one up.
#[test]
fn without_subgroups_executions_count_invocations() {
    let _gpu = util::gpu_shared();
    let gpu = divlab::gpu::GpuContext::new_without(
        &divlab::gpu::AdapterSelector::default(),
        wgpu::Features::SUBGROUP | wgpu::Features::SUBGROUP_BARRIER,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let lab = Lab::new(gpu);
    let mut request = Request::new("test.wgsl", LANE_MOD_4);
    request.reps = 3;
    let p = profile(&lab, &request)
        .unwrap_or_else(|e| panic!("{e}"))
        .profile;
    assert_eq!(p.subgroup_size, None);
    assert_eq!(p.control_flow_efficiency, None);
    let then = line(&p, line_of(LANE_MOD_4, "// then"));
    assert_eq!((then.executions, then.efficiency), (16, None));
    assert!(
        p.notes.iter().any(|n| n.contains("no subgroup operations")),
        "{:#?}",
        p.notes
    );
}

/// The divergence study's own switch kernel, checked in as a file so the H200 can profile it.
const SWITCH_KERNEL: &str = "assets/kernels/divergence_switch.wgsl";

fn switch_source() -> String {
    Form::Switch.source(32, Selection::Subgroup)
}

/// The checked-in switch kernel is what the study generates (regenerate it with
/// `DIVLAB_WRITE_KERNELS=1 cargo test switch_kernel_file`).
#[test]
fn switch_kernel_file_is_the_studys() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SWITCH_KERNEL);
    if std::env::var_os("DIVLAB_WRITE_KERNELS").is_some() {
        std::fs::write(&path, switch_source()).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap_or_default(),
        switch_source(),
        "{SWITCH_KERNEL} is stale; regenerate it with DIVLAB_WRITE_KERNELS=1"
    );
}

/// `--buffer params=...` for the study's kernel at `k` paths, every path `trips` trips, lanes
/// choosing a path by `subgroup_invocation_id % k`.
pub fn switch_params(k: u32, trips: u32) -> String {
    let trips: Vec<String> = (0..32).map(|_| trips.to_string()).collect();
    format!("params=values:{k},0,0,0,{}", trips.join(","))
}

/// Profiling the study's switch kernel agrees with the timing study's model: at k paths each
/// case body runs with SG/k lanes, efficiency 1/k.
#[test]
fn the_studys_switch_kernel_has_case_efficiency_one_over_k() {
    let source = switch_source();
    for k in [2u32, 4, 8] {
        let p = profiled(&source, |r| {
            r.buffers = vec![switch_params(k, 4).parse().unwrap()];
        })
        .profile;
        let sg = p.subgroup_size.expect("subgroups");
        if k > sg {
            continue;
        }
        let cases: Vec<&LineProfile> = p
            .lines
            .iter()
            .filter(|l| {
                source
                    .lines()
                    .nth(l.line as usize - 1)
                    .is_some_and(|t| t.contains("trips("))
                    && l.executions > 0
            })
            .collect();
        assert_eq!(cases.len(), k as usize, "k = {k}: {:#?}", p.lines);
        for c in cases {
            assert_close(c.efficiency, 1.0 / f64::from(k), &format!("k = {k}"));
        }
    }
}

/// One timed run has no interval: the document records none, and the report never calls the
/// overhead beyond noise (a single pair once gave "95% interval 0.84x to 0.84x").
#[test]
fn one_timed_run_claims_no_interval() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    std::fs::write(path_in(&dir, "k.wgsl"), LANE_MOD_4).unwrap();
    let mut cmd = divlab(dir.path());
    cmd.args(["profile", "k.wgsl", "--reps", "1", "--json", "p.json"]);
    let out = run(cmd);
    out.assert_code(0);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path_in(&dir, "p.json")).unwrap()).unwrap();
    assert_eq!(doc["timing"]["reps"], 1, "{out}");
    assert!(doc["timing"]["overhead_interval"].is_null(), "{out}");
    let time = (out.stdout.lines())
        .find(|l| l.starts_with("time:"))
        .unwrap_or_else(|| panic!("no time line\n{out}"));
    assert!(!time.contains("interval"), "{time}");
    assert!(!out.stdout.contains("beyond noise"), "{out}");
}

/// Bad input is exit 2 with a message that names the problem, never a panic.
#[test]
fn cli_profile_rejects_bad_input_clearly() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let write = |name: &str, text: &str| std::fs::write(path_in(&dir, name), text).unwrap();
    write("ok.wgsl", LANE_MOD_4);
    write(
        "bad.wgsl",
        "@compute @workgroup_size(1)\nfn main() {\n    let x = ;\n}\n",
    );
    write(
        "vertex.wgsl",
        "@vertex\nfn vs() -> @builtin(position) vec4<f32> {\n    return vec4<f32>();\n}\n",
    );
    write(
        "texture.wgsl",
        "@group(0) @binding(0) var tex: texture_external;\n\
         @group(0) @binding(1) var<storage, read_write> out: array<f32>;\n\
         @compute @workgroup_size(1)\n\
         fn main() {\n    out[0] = textureLoad(tex, vec2<i32>(0, 0)).x;\n}\n",
    );
    // A buffer in each of wgpu's eight bind groups leaves none for the counters.
    let groups: String = (0..8)
        .map(|g| format!("@group({g}) @binding(0) var<storage, read_write> b{g}: array<u32>;\n"))
        .collect();
    let uses: String = (0..8).map(|g| format!("    b{g}[0] = 1u;\n")).collect();
    write(
        "groups.wgsl",
        &format!("{groups}@compute @workgroup_size(1)\nfn main() {{\n{uses}}}\n"),
    );
    let cases: &[(&[&str], &str)] = &[
        (&["bad.wgsl"], "bad.wgsl:3:13"),
        (&["vertex.wgsl"], "no @compute entry point"),
        (&["ok.wgsl", "--entry", "nope"], "nope"),
        (
            &["texture.wgsl"],
            "error: texture.wgsl:1: `tex` (@group(0) @binding(0), line 1",
        ),
        (&["ok.wgsl", "--buffer", "out"], "BINDING=FILL"),
        (&["ok.wgsl", "--buffer", "out=values:1,x"], "values:1,x"),
        (&["ok.wgsl", "--len", "out=many"], "out=many"),
        (&["ok.wgsl", "--override", "N"], "NAME=VALUE"),
        (&["ok.wgsl", "--override", "N=1"], "N"),
        (
            &["ok.wgsl", "--buffer", "out=file:missing.bin"],
            "missing.bin",
        ),
        (&["ok.wgsl", "--buffer", "nothing=zeros"], "nothing"),
        (&["missing.wgsl"], "missing.wgsl"),
        (&["groups.wgsl"], "bind groups"),
        // `--lanes` names its place itself: no `ok.wgsl:1:` before it.
        (
            &["ok.wgsl", "--lanes", "1"],
            "error: --lanes 1: ok.wgsl:1 has no code",
        ),
        (&["ok.wgsl", "--lanes", "x"], "--lanes"),
        (
            &["ok.wgsl", "--counts", "invocations", "--lanes", "6"],
            "error: --lanes 6: --counts invocations makes no ballot to record",
        ),
        (
            &["ok.wgsl", "--counts", "lanes"],
            "[possible values: subgroups, invocations]",
        ),
    ];
    for (args, needle) in cases {
        let mut cmd = divlab(dir.path());
        cmd.arg("profile").args(*args);
        let out = run(cmd);
        out.assert_code(2);
        assert!(out.stderr.contains(needle), "expected `{needle}`\n{out}");
    }
}

/// `--counts invocations` on an adapter with subgroups: each line counts the invocations that
/// ran it, the document and the report say how it was counted, and `--cost`, which needs the
/// branches' divergence, says why it measured nothing.
#[test]
fn counted_per_invocation_a_line_counts_its_invocations_and_cost_says_why_not() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    std::fs::write(dir.path().join("k.wgsl"), LANE_MOD_4).unwrap();
    let mut cmd = divlab(dir.path());
    cmd.args([
        "profile",
        "k.wgsl",
        "--dispatch",
        "3",
        "--counts",
        "invocations",
    ])
    .args(["--cost", "--reps", "1", "--json", "k.json"]);
    let out = run(cmd);
    out.assert_code(0);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("k.json")).unwrap()).unwrap();
    assert_eq!(doc["request"]["counts"], "invocations");
    assert!(doc["subgroup_size"].is_null() && doc["control_flow_efficiency"].is_null());
    let executions = |n: u64| {
        let lines = doc["lines"].as_array().unwrap();
        let line = lines.iter().find(|l| l["line"] == n).unwrap();
        (line["executions"].as_u64(), line["active_lanes"].as_u64())
    };
    // 192 invocations reach the branch, a quarter of them take it.
    assert_eq!(executions(5), (Some(192), None));
    assert_eq!(executions(6), (Some(48), None));
    // Nothing votes: the `if` was evaluated by the invocations that reached it.
    let branch = &doc["branches"][0];
    assert_eq!(
        (&branch["line"], &branch["executions"], &branch["taken"]),
        (&5.into(), &192.into(), &48.into()),
        "{branch}"
    );
    assert!(branch["divergent_fraction"].is_null(), "{branch}");
    for said in [
        "subgroup size: not observed (--counts invocations: executions count invocations",
        "--cost: not measured, --counts invocations counts no divergence to price",
    ] {
        assert!(out.stdout.contains(said), "expected `{said}`\n{out}");
    }
    assert!(
        doc["branches"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["cost"].is_null()),
        "{}",
        doc["branches"]
    );
}

/// A `workgroupBarrier` that only half the workgroup reaches (WGSL forbids it; naga lets it
/// through): lavapipe leaves the waiting invocations there, so they never add the counts they
/// keep for the lines in loops. The profile says so, counted per subgroup and per invocation,
/// rather than show the loop's body as never run.
#[test]
fn invocations_that_never_reach_the_end_are_named_not_dropped_silently() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    std::fs::write(
        dir.path().join("k.wgsl"),
        "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n\
         \n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(local_invocation_index) lid: u32) {\n\
         \x20   for (var round = 0u; round < 4u; round++) {\n\
         \x20       for (var p = 0u; p < 1u; p++) {\n\
         \x20           if (lid >= 32u) { break; }\n\
         \x20           data[lid] += round; // body\n\
         \x20           workgroupBarrier();\n\
         \x20       }\n\
         \x20   }\n\
         }\n",
    )
    .unwrap();
    let profile = |counts: &str| {
        let mut cmd = divlab(dir.path());
        cmd.args(["profile", "k.wgsl", "--counts", counts, "--reps", "1"])
            .args(["--json", "k.json"]);
        let out = run(cmd);
        out.assert_code(0);
        let text = std::fs::read_to_string(dir.path().join("k.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()
    };
    let doc = profile("subgroups");
    let notes = doc["notes"].to_string();
    let body = doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["line"] == 8);
    let lanes = body.and_then(|l| l["active_lanes"].as_u64()).unwrap_or(0);
    // Either every invocation ended (32 lanes ran the body in each of 4 rounds), or the
    // profile says how many did not.
    let said = notes.contains("32 of the 64 invocations that entered `main` never reached its end");
    assert!(said || lanes == 128, "body lanes {lanes}, notes {notes}");
    if doc["adapter"]["name"].to_string().contains("llvmpipe") {
        assert!(said, "lavapipe leaves them waiting: {notes}");
        assert!(
            notes.contains("(here the loops on lines 5 and 6 and what they call)"),
            "the lines left short: {notes}"
        );
        let doc = profile("invocations");
        let notes = doc["notes"].to_string();
        assert!(
            notes.contains("32 invocations of the entry point `main` reached its end"),
            "{notes}"
        );
    }
}

/// Every Playground example compiles, takes its own settings and runs to its end, as a
/// first-time user who picks it and presses Run expects.
#[cfg(feature = "app")]
#[test]
fn every_playground_example_runs_to_its_end() {
    let _gpu = util::gpu_shared();
    let lab = Lab::new(util::gpu());
    for example in divlab::app::playground::examples::EXAMPLES {
        let source = example.source();
        let mut request = example
            .settings()
            .request(divlab::app::playground::FILE, &source)
            .unwrap_or_else(|e| panic!("{}: {e}", example.name));
        request.reps = 1;
        let finished = profile(&lab, &request).unwrap_or_else(|e| panic!("{}: {e}", example.name));
        assert!(
            finished.cap_hit.is_none(),
            "{}: {:?}",
            example.name,
            finished.cap_hit
        );
        let p = &finished.profile;
        assert!(p.subgroup_size.is_some(), "{}", example.name);
        // Each example is there to show divergence: some line runs with idle lanes.
        assert!(
            p.lines
                .iter()
                .any(|l| l.efficiency.is_some_and(|e| e < 1.0)),
            "{}: no line ran with idle lanes",
            example.name
        );
    }
}

const NEVER_DIVERGE: &str = "\
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let v = data[0];
    if (v > 2.0) { // data branch
        data[gid.x] = 1.0;
    }
    if (gid.x > 1000000u) { // id branch
        data[gid.x] = 2.0;
    }
    for (var c = 0u; c < 4u; c++) { // constant loop
        if (gid.x >= 1000000u && c < 2u) {
            data[gid.x] = 3.0;
        }
    }
}
";

/// Two branches the analysis calls non-uniform that never diverge here: one on loaded data
/// (every lane reads `data[0]`), one on `global_invocation_id`. Only the second is told to use
/// `workgroup_id`; the first is told where uniform data can come from. A loop over constants
/// whose body holds non-uniform code is told nothing: its condition reads neither.
#[test]
fn the_uniformity_hint_follows_what_the_condition_depends_on() {
    let p = profiled(NEVER_DIVERGE, |r| {
        r.buffers = vec!["data=zeros".parse().unwrap()]
    })
    .profile;
    let note_at = |marker: &str| {
        let line = line_of(NEVER_DIVERGE, marker);
        p.notes
            .iter()
            .find(|n| n.starts_with(&format!("line {line}:")))
            .unwrap_or_else(|| panic!("no note at line {line}: {:#?}", p.notes))
            .clone()
    };
    let data = note_at("// data branch");
    assert!(!data.contains("workgroup_id"), "{data}");
    assert!(data.contains("var<uniform>"), "{data}");
    let id = note_at("// id branch");
    assert!(
        id.contains("`workgroup_id` instead of `global_invocation_id`"),
        "{id}"
    );
    let constant = line_of(NEVER_DIVERGE, "// constant loop");
    assert!(
        !p.notes
            .iter()
            .any(|n| n.starts_with(&format!("line {constant}:"))),
        "{:#?}",
        p.notes
    );
}

/// An `if` taken by one lane in four, with and without an `else`, in a loop and outside one.
const TAKEN_SIDES: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var acc = 0u;
    if (lid % 4u == 0u) { // no else
        acc = 1u;
    }
    if (lid < 48u) { // with else
        acc += 2u;
    } else {
        acc += 3u;
    }
    for (var i = 0u; i < 4u; i++) {
        if ((lid + i) % 2u == 0u) { // in a loop
            acc += i;
        }
    }
    out[lid] = acc;
}";

#[test]
fn an_ifs_lanes_are_split_into_the_taken_and_the_other_side() {
    let finished = profiled(TAKEN_SIDES, |_| {});
    let p = &finished.profile;
    // 64 invocations, each reaching every `if` once (four times in the loop); with subgroups
    // the counts are lanes, without (GL) invocations: the same numbers.
    for (marker, taken, not_taken) in [
        ("// no else", 16, 48),
        ("// with else", 48, 16),
        ("// in a loop", 128, 128),
    ] {
        let b = branch(p, line_of(TAKEN_SIDES, marker), "if");
        assert_eq!(
            (b.taken, b.not_taken),
            (Some(taken), Some(not_taken)),
            "{marker}"
        );
    }
    let share = branch(p, line_of(TAKEN_SIDES, "// no else"), "if").taken_share();
    assert_eq!(share, Some(0.25));
}
