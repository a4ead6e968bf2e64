//! The pass on small kernels: the sites it numbers, the WGSL it writes, its errors.

use std::ops::RangeInclusive;

use super::*;
use crate::shaders::{check_wgsl, prepare_for_naga};

/// If/else, an early return, a switch with a case list and an empty default, a `for` loop
/// with per-lane trips, and a helper call (the helper has an early return of its own).
const KERNEL: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

fn helper(x: u32) -> u32 {
    if x > 4u {
        return x * 2u;
    }
    return x;
}
// fn main is the entry point (a comment naming it does not move its line)
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&out) {
        return;
    }
    var acc = 0u;
    if (i & 1u) == 0u {
        acc = 1u;
    } else {
        acc = 2u;
    }
    switch i % 3u {
        case 0u: { acc += 10u; }
        case 1u, 2u: { acc += 20u; }
        default: { }
    }
    for (var k = 0u; k < i % 5u; k++) {
        acc += helper(k);
    }
    out[i] = acc;
}

fn unused() -> u32 {
    if true { return 1u; }
    return 0u;
}
";

pub(super) fn run(source: &str, subgroups: bool, loop_cap: u32) -> Instrumented {
    let prepared = prepare_for_naga(source);
    let module = check_wgsl("test.wgsl", &prepared).expect("test kernel");
    let opts = InstrumentOptions {
        subgroups,
        loop_cap,
        counters_group: 1,
        lanes_block: None,
        invocations: u64::MAX,
        ballot_words: 4,
        probe_loop_limit: false,
    };
    let out = instrument(&module, &prepared, "main", &opts).expect("instrument");
    // The emitted WGSL goes back through divlab's own naga path, as the GPU will take it.
    check_wgsl("instrumented.wgsl", &out.wgsl)
        .unwrap_or_else(|e| panic!("{e}\n--- emitted WGSL ---\n{}", out.wgsl));
    assert!(!out.wgsl.contains("enable subgroups"));
    out
}

/// A block site: its kind, function, line and own lines, and what opens it (the opening
/// statement's line and site).
fn block(
    (kind, function): (BlockKind, &str),
    line: u32,
    lines: RangeInclusive<u32>,
    (parent_line, opener): (u32, Opener),
) -> BlockSite {
    BlockSite {
        kind,
        function: function.to_owned(),
        empty: false,
        line,
        lines,
        parent_line,
        opener,
    }
}

fn empty(kind: BlockKind, function: &str, (line, opener): (u32, Opener)) -> BlockSite {
    BlockSite {
        empty: true,
        ..block((kind, function), line, line..=line, (line, opener))
    }
}

#[test]
fn sites_lines_and_round_trip() {
    use BlockKind::*;
    let out = run(KERNEL, true, 1000);
    let (main, helper) = ("main", "helper");
    let (function, branch, lp) = (Opener::Function, Opener::Branch, Opener::Loop);
    let expected = vec![
        block((FunctionBody, main), 11, 12..=30, (11, function)),
        block((IfAccept, main), 14, 14..=14, (13, branch(0))),
        empty(IfReject, main, (13, branch(0))),
        // After the early return, the lanes that stayed are counted anew (`var acc = 0u;`
        // is an initialized local, not a statement).
        block((Continuation, main), 17, 17..=30, (13, function)),
        block((IfAccept, main), 18, 18..=18, (17, branch(1))),
        block((IfReject, main), 20, 20..=20, (17, branch(1))),
        block((SwitchCase, main), 23, 23..=23, (22, branch(2))),
        block((SwitchCase, main), 24, 24..=24, (22, branch(2))),
        empty(SwitchCase, main, (22, branch(2))),
        // The `for` body: naga's exit test (line 27) and the user's body (line 28).
        block((LoopBody, main), 27, 27..=28, (27, lp(0))),
        empty(IfAccept, main, (27, branch(3))),
        block((IfReject, main), 27, 27..=27, (27, branch(3))),
        block((LoopContinuing, main), 27, 27..=27, (27, lp(0))),
        block((FunctionBody, helper), 3, 4..=7, (3, function)),
        block((IfAccept, helper), 5, 5..=5, (4, branch(4))),
        empty(IfReject, helper, (4, branch(4))),
        block((Continuation, helper), 7, 7..=7, (4, function)),
    ];
    assert_eq!(out.blocks, expected);
    let branches: Vec<(BranchKind, u32, &str, Opener)> = out
        .branches
        .iter()
        .map(|b| (b.kind, b.line, b.function.as_str(), b.enclosing))
        .collect();
    // The loop's exit test stands in its body; the rest in their functions' bodies.
    assert_eq!(
        branches,
        [
            (BranchKind::If, 13, "main", function),
            (BranchKind::If, 17, "main", function),
            (BranchKind::Switch, 22, "main", function),
            (BranchKind::If, 27, "main", lp(0)),
            (BranchKind::If, 4, "helper", function),
        ]
    );
    // How their lanes may leave: the early returns, and the exit test's `break`.
    let exits: Vec<(bool, bool)> = (out.branches.iter())
        .map(|b| (b.exits.breaks, b.exits.returns))
        .collect();
    assert_eq!(
        exits,
        [
            (false, true),
            (false, false),
            (false, false),
            (true, false),
            (false, true)
        ]
    );
    assert_eq!(
        out.loops,
        [LoopSite {
            exit_test: Some(3),
            test_branches: 3..4,
            line: 27,
            function: "main".to_owned(),
            enclosing: Opener::Function,
            break_if: false,
            fixed_trips: None,
        }]
    );
    assert_eq!(out.counter_words, HEADER_WORDS + 4 * 17 + 4 * 5 + 1 + 1);
    assert_eq!(out.layout.words(), out.counter_words);
    // Only the profiled entry point is left; the counters are bound where asked.
    assert_eq!(out.module.entry_points.len(), 1);
    assert!(out.wgsl.contains("@group(1) @binding(0)"));
    for op in [
        "subgroupBallot(true)",
        "countOneBits(",
        "= divlab_lane;",
        "subgroupBroadcastFirst(",
        "subgroupAll(",
        "subgroupAny(",
        "subgroupBroadcastFirst(",
        "atomicAdd(",
    ] {
        assert!(out.wgsl.contains(op), "no {op} in\n{}", out.wgsl);
    }
    // `helper` is called only in the `for` body (block 9): counted on the host from it.
    let calls = Derived::Calls {
        block: 13,
        callers: vec![9],
    };
    assert_eq!(out.derived, [calls]);
    // The `for` loop's counts are hoisted out of it: no subgroup operation runs per trip.
    let cap = out.wgsl.find("> 1000u").expect("the for loop's cap check");
    let at = out.wgsl[..cap].rfind("loop {").expect("the for loop");
    let trip = &out.wgsl[at..at + out.wgsl[at..].find("continuing").expect("continuing")];
    assert!(
        !trip.contains("subgroup"),
        "a subgroup operation per trip:\n{trip}"
    );
    // `unused` is not reachable from `main`: not instrumented.
    assert!(out.blocks.iter().all(|b| b.function != "unused"));
}

#[test]
fn without_subgroups_no_subgroup_builtin() {
    let out = run(KERNEL, false, 1000);
    assert_eq!(out.blocks.len(), 17);
    assert_eq!(out.branches.len(), 5);
    for word in ["subgroup", "quad"] {
        assert!(!out.wgsl.contains(word), "{word} in\n{}", out.wgsl);
    }
    assert!(out.wgsl.contains("atomicAdd("));
}

#[test]
fn loop_has_cap_check() {
    for subgroups in [true, false] {
        let out = run(KERNEL, subgroups, 12345);
        let at = out.wgsl.find("loop {").expect("a loop");
        let body = &out.wgsl[at..];
        let check = body.find("12345u").expect("cap check in the loop");
        let tail = &body[check..];
        let brk = tail.find("break;").expect("break after the cap check");
        let max = tail.find("atomicMax(").expect("cap hit recorded");
        assert!(max < brk, "the hit is recorded before the break");
        // The cap is checked before the body's first user statement (`helper`'s call).
        assert!(check < body.find("helper(").expect("call in the body"));
    }
}

#[test]
fn loop_continuing_break_if_and_nested_calls() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> data: array<i32>;

fn leaf(v: i32) -> i32 {
    switch v {
        case 1: { return 3; }
        default: { return v; }
    }
}

fn mid(v: i32) -> i32 {
    var s = 0;
    while s < v {
        s += leaf(s);
    }
    return s;
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32) {
    var n = 0;
    loop {
        n += mid(i32(li));
        continuing {
            n += 1;
            break if n > 10;
        }
    }
    data[li] = n;
}
";
    let out = run(src, true, 7);
    let functions: Vec<&str> = out
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::FunctionBody)
        .map(|b| b.function.as_str())
        .collect();
    // Callers before callees: a callee's calls are all known when it is reached.
    assert_eq!(functions, ["main", "mid", "leaf"]);
    // `mid` runs from `main`'s loop body (block 1) and `leaf` from `mid`'s `while` body:
    // both are counted on the host from those blocks.
    let body_of = |function: &str| {
        let at = |b: &&BlockSite| b.function == function && b.kind == BlockKind::LoopBody;
        out.blocks.iter().position(|b| at(&b)).expect("loop body")
    };
    let function_body = |function: &str| {
        let at = |b: &BlockSite| b.function == function && b.kind == BlockKind::FunctionBody;
        out.blocks.iter().position(at).expect("function body")
    };
    assert_eq!(
        out.derived,
        [("mid", "main"), ("leaf", "mid")].map(|(callee, caller)| Derived::Calls {
            block: function_body(callee),
            callers: vec![body_of(caller)],
        })
    );
    let continuing: Vec<&BlockSite> = out
        .blocks
        .iter()
        .filter(|b| b.kind == BlockKind::LoopContinuing)
        .collect();
    assert_eq!(continuing[0].function, "main");
    assert_eq!(continuing[0].lines, 24..=25);
    let loops: Vec<(u32, &str)> = out
        .loops
        .iter()
        .map(|l| (l.line, l.function.as_str()))
        .collect();
    assert_eq!(loops, [(21, "main"), (12, "mid")]);
    let switch = out
        .branches
        .iter()
        .find(|b| b.kind == BranchKind::Switch)
        .expect("switch");
    assert_eq!((switch.line, switch.function.as_str()), (4, "leaf"));
    run(src, false, 7);
}

#[test]
fn rejects_missing_entry_and_taken_binding() {
    let prepared = prepare_for_naga(KERNEL);
    let module = check_wgsl("test.wgsl", &prepared).unwrap();
    let mut opts = InstrumentOptions::default();
    let err = instrument(&module, &prepared, "nope", &opts).unwrap_err();
    assert!(err.to_string().contains("`nope`"), "{err}");
    opts.counters_group = 0;
    let err = instrument(&module, &prepared, "main", &opts).unwrap_err();
    assert!(err.to_string().contains("@group(0) @binding(0)"), "{err}");
}

#[test]
fn layout_reads_wide_counters() {
    let layout = CounterLayout {
        blocks: 2,
        branches: 1,
        loops: 2,
    };
    assert_eq!(layout.words(), 4 + 8 + 4 + 2 + 1);
    assert_eq!(layout.block_active_lanes(1), 10);
    assert_eq!(layout.branch_divergent(0), 14);
    assert_eq!(layout.loop_cap_hits(1), 17);
    assert_eq!(layout.exits(), 18);
    let mut words = vec![0u32; 19];
    words[layout.exits()] = 40;
    words[CAP_HIT_WORD as usize] = 2;
    words[MAX_LANES_WORD as usize] = 8;
    words[SUBGROUP_WIDTH_WORD as usize] = 32;
    words[layout.block_executions(1)] = 5;
    words[layout.block_active_lanes(1)] = 7;
    words[layout.block_active_lanes(1) + 1] = 1;
    words[layout.branch_evaluations(0)] = 3;
    words[layout.branch_divergent(0)] = 1;
    words[layout.loop_cap_hits(1)] = 9;
    assert!(!layout.read(&words).unwrap().driver_loop_limit);
    words[LOOP_LIMIT_WORD as usize] = 1;
    let c = layout.read(&words).unwrap();
    assert!(c.driver_loop_limit);
    assert_eq!(c.cap_hit, Some(1));
    assert_eq!(c.max_active_lanes, Some(8));
    assert_eq!(c.subgroup_width, Some(32));
    assert_eq!(c.blocks[0], BlockCounts::default());
    assert_eq!(c.blocks[1].executions, 5);
    assert_eq!(c.blocks[1].active_lanes, (1 << 32) + 7);
    assert_eq!(
        c.branches[0],
        BranchCounts {
            evaluations: 3,
            divergent: 1
        }
    );
    assert_eq!(c.loop_cap_hits, [0, 9]);
    assert_eq!(c.exits, 40);
    assert!(layout.read(&words[1..]).is_err());
    let b = BlockCounts {
        executions: 4,
        active_lanes: 64,
    };
    assert_eq!(b.mean_active_lanes(), Some(16.0));
    assert_eq!(b.efficiency(32), Some(0.5));
}

/// Instruments `entry` of `source` with `opts`, checking the WGSL as `run` does.
fn run_with(source: &str, entry: &str, opts: &InstrumentOptions) -> Instrumented {
    let prepared = prepare_for_naga(source);
    let module = check_wgsl("test.wgsl", &prepared).expect("test kernel");
    let out = instrument(&module, &prepared, entry, opts).unwrap_or_else(|e| panic!("{e}"));
    check_wgsl("instrumented.wgsl", &out.wgsl)
        .unwrap_or_else(|e| panic!("{e}\n--- emitted WGSL ---\n{}", out.wgsl));
    out
}

const TILE_2D: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
    if lid.x < 3u {
        out[lid.y] = subgroupAdd(lid.x);
    }
}
";

/// naga forbids `subgroup_invocation_id` in a 2-D or 3-D workgroup: the election there reads
/// each lane's rank at the entry (`subgroupExclusiveAdd(1u)`, its bit in a ballot), and
/// `--lanes` records which invocations the lanes were by `local_invocation_index` (a
/// `subgroupOr` of their bits, and a shuffle that checks each lane's place). A 1-D kernel keeps
/// `subgroup_invocation_id` and the 8-word record.
#[test]
fn a_2d_workgroup_elects_by_each_lanes_rank() {
    for lanes_block in [None, Some(1)] {
        let opts = InstrumentOptions {
            counters_group: 1,
            lanes_block,
            ..InstrumentOptions::default()
        };
        let out = run_with(TILE_2D, "main", &opts);
        assert!(!out.wgsl.contains("subgroup_invocation_id"), "{}", out.wgsl);
        assert!(
            out.wgsl.contains("subgroupExclusiveAdd(1u)"),
            "{}",
            out.wgsl
        );
        let by_index = out.wgsl.contains("local_invocation_index");
        assert_eq!(by_index, lanes_block.is_some(), "{}", out.wgsl);
        assert!(out.wgsl.contains("subgroup_size"), "{}", out.wgsl);
        assert_eq!(out.lane_record_words, LANE_RECORD_WORDS_MULTI);
        let records_invocations = ["subgroupOr(", "subgroupShuffle("];
        for op in records_invocations {
            assert_eq!(out.wgsl.contains(op), lanes_block.is_some(), "{op}");
        }
    }
    let out = run(KERNEL, true, 1000);
    assert!(out.wgsl.contains("subgroup_invocation_id"));
    assert_eq!(out.lane_record_words, LANE_RECORD_WORDS);
}

/// naga's WGSL writer renames an entry point named like a builtin function (`step`), an
/// enumerant (`read`) or ending in a digit: the pipeline must name the entry as written. The
/// other entry points are left out, their shared helper stays.
#[test]
fn an_entry_point_is_named_as_naga_writes_it() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> cells: array<u32>;

fn wrap(i: u32) -> u32 { return i % arrayLength(&cells); }

@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) gid: vec3<u32>) { cells[wrap(gid.x)] += 1u; }

@compute @workgroup_size(64)
fn read(@builtin(global_invocation_id) gid: vec3<u32>) { cells[wrap(gid.x)] = 0u; }

@compute @workgroup_size(64)
fn pass2(@builtin(global_invocation_id) gid: vec3<u32>) { cells[gid.x] = 2u; }
";
    let opts = InstrumentOptions {
        counters_group: 1,
        ..InstrumentOptions::default()
    };
    for entry in ["step", "read", "pass2"] {
        let out = run_with(src, entry, &opts);
        let written = naga::front::wgsl::parse_str(&out.wgsl).unwrap();
        assert_eq!(written.entry_points.len(), 1);
        assert_eq!(written.entry_points[0].name, out.entry, "{entry}");
        assert_ne!(
            out.entry, entry,
            "naga keeps `{entry}` now: the field may go"
        );
        assert!(out.wgsl.contains(&format!("fn {}(", out.entry)));
    }
}

/// One private trip counter for every loop of the invocation, those of a callee too: each
/// loop's check compares it with the cap, and records the hit only on the trip that crosses
/// it (`cap + 1`). Only the hoisted `for` keeps a counter of its own, for its counts.
#[test]
fn one_trip_counter_caps_all_loops_together() {
    let src = "\
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

fn spin(n: u32) -> u32 {
    var k = 0u;
    loop {
        if k >= n { break; }
        k += data[k];
    }
    return k;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    var acc = 0u;
    for (var r = 0u; r < data[0]; r++) {
        for (var c = 0u; c < data[1]; c++) {
            acc += spin(r ^ c);
        }
    }
    data[li] = acc;
}
";
    for subgroups in [true, false] {
        let out = run(src, subgroups, 777);
        assert_eq!(out.loops.len(), 3);
        assert_eq!(
            out.wgsl.matches("var<private> divlab_trips: u32;").count(),
            1
        );
        assert_eq!(out.wgsl.matches("> 777u").count(), 3, "{}", out.wgsl);
        // The hit is recorded once, behind one flag, wherever the count crossed the cap.
        assert_eq!(
            out.wgsl
                .matches("var<private> divlab_capped: bool;")
                .count(),
            1
        );
        assert_eq!(
            out.wgsl.matches("divlab_capped = true;").count(),
            3,
            "{}",
            out.wgsl
        );
        let own =
            out.wgsl.matches("divlab_trips0").count() + out.wgsl.matches("divlab_trips1").count();
        assert_eq!(
            own > 0,
            subgroups,
            "only hoisted loops count their own trips"
        );
    }
}

/// A loop with a short-circuit test and an `if` in its body (Collatz's shape) leaves only by
/// its test, so it is counted after it ends: each trip costs the `if` two votes (whether some
/// lane takes each side) and nothing else, no ballot, no election, no `subgroupBroadcastFirst`.
#[test]
fn a_hoisted_loop_trip_costs_its_top_level_if_two_votes() {
    let source = "\
@group(0) @binding(0) var<storage, read_write> steps: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var n = gid.x + 1u;
    var count = 0u;
    while (n != 1u && count < 1000u) {
        if ((n & 1u) == 0u) {
            n = n / 2u;
        } else {
            n = 3u * n + 1u;
        }
        count += 1u;
    }
    steps[gid.x] = count;
}
";
    let out = run(source, true, 1000);
    let trip = &out.wgsl[out.wgsl.find("loop {").expect("a loop")..];
    let trip = &trip[..trip.find("\n    }\n").expect("the loop's end")];
    let count = |op: &str| trip.matches(op).count();
    assert_eq!(count("subgroupBallot("), 0, "{trip}");
    assert_eq!(count("subgroupBroadcastFirst("), 0, "{trip}");
    assert_eq!(
        (count("subgroupAny("), count("subgroupAll(")),
        (1, 1),
        "{trip}"
    );
    assert_eq!(count("subgroup"), 2, "{trip}");
}

/// With `probe_loop_limit`, a kernel with loops ends its flush with the two-pass probe of
/// llvmpipe's loop limit, bounded by the buffer's length (no compiler unrolls it away), and
/// records a probe that ran one pass; a kernel without loops has nothing to probe.
#[test]
fn the_loop_limit_probe_ends_the_flush_of_a_kernel_with_loops() {
    for subgroups in [true, false] {
        let opts = InstrumentOptions {
            subgroups,
            counters_group: 1,
            probe_loop_limit: true,
            ..InstrumentOptions::default()
        };
        let out = run_with(KERNEL, "main", &opts);
        let flush = &out.wgsl[out.wgsl.find("fn divlab_flush").expect("the flush")..];
        let probe = flush
            .find("divlab_probe = 0u")
            .expect("the probe in the flush");
        let bound = flush.find("arrayLength((&divlab_counters))");
        assert!(bound.is_some_and(|b| b > probe), "{flush}");
        let word = format!("+ {LOOP_LIMIT_WORD}u)]), 1u)");
        assert!(flush.contains("atomicMax((&divlab_counters[("), "{flush}");
        assert!(flush.contains(&word), "{word} in\n{flush}");
        let without = InstrumentOptions {
            probe_loop_limit: false,
            ..opts
        };
        assert!(
            !run_with(KERNEL, "main", &without)
                .wgsl
                .contains("divlab_probe")
        );
    }
    let no_loops = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x % 2u == 0u { out[gid.x] = 1u; }
}
";
    let opts = InstrumentOptions {
        counters_group: 1,
        probe_loop_limit: true,
        ..InstrumentOptions::default()
    };
    assert!(
        !run_with(no_loops, "main", &opts)
            .wgsl
            .contains("divlab_probe")
    );
}

/// The cap under which no count wraps: a lane's private count is at most `(cap + 1)` per call
/// path, and a subgroup's sum of them (up to 32 lanes a ballot word) is 32-bit.
#[test]
fn the_largest_safe_cap_divides_32_bits_by_the_lanes_and_the_call_paths() {
    let opts = |subgroups, ballot_words| InstrumentOptions {
        subgroups,
        ballot_words,
        ..InstrumentOptions::default()
    };
    assert_eq!(max_loop_cap(&opts(true, 1), 1), u32::MAX / 32 - 1);
    assert_eq!(max_loop_cap(&opts(true, 4), 1), u32::MAX / 128 - 1);
    // 4096 call paths of 32 lanes: 2^32 / 2^17 = 32768 a lane, less the entry trip.
    assert_eq!(max_loop_cap(&opts(true, 1), 4096), 32_766);
    assert_eq!(max_loop_cap(&opts(false, 1), 1), u32::MAX - 1);
    assert_eq!(max_loop_cap(&opts(false, 1), 3), u32::MAX / 3 - 1);
    // A call tree past any bound still leaves a cap of one trip.
    assert_eq!(max_loop_cap(&opts(true, 4), u64::MAX), 1);
    // KERNEL calls `helper` from one place: one call path.
    let out = run(KERNEL, true, 1000);
    assert_eq!(out.max_loop_cap, u32::MAX / 128 - 1);
}
