// Intra-subgroup handshake (seeds 000, 001; DESIGN.md §6). In every subgroup, even lanes and odd
// lanes take the two sides of an if/else. Side A sets flag a, then spins until flag b is set;
// side B spins until flag a is set, then sets flag b. `a_then` puts side A in the then-branch,
// `a_else` in the else-branch. A scheduler that runs one side of the branch to its end before
// the other leaves a side spinning to its cap in both orders; one that interleaves diverged
// paths completes both sides in both orders.
//
// Why no configuration can hang the GPU: each side has one spin, a `for` loop of at most
// `params.cap` checks whatever the flags do, and nothing else that waits. A side that runs
// first and alone gives up after `cap` checks and ends, so the other side then runs.
//
// Flag b means "a B lane saw a": a B lane that gave up does not set it, so a completed A lane
// always has a B lane that completed before it.
//
// Without subgroups (wgpu's GL backend, older GPUs) the `_no_sg` entry points run the same
// handshake per aligned block of BLOCK consecutive local invocations instead of per subgroup,
// split the same way by parity, with no ballots. The host loads this file with its SUBGROUPS
// ONLY regions blanked (src/experiments/scheduling/mod.rs says why).
//
// Keep in sync with src/shaders/scheduling.rs (WORKGROUP_SIZE,
// HandshakeParams, HandshakeRecord, SIDE_*) and scheduling/mod.rs (BLOCK).
// BEGIN SUBGROUPS ONLY
enable subgroups;
// The in-branch ballots run in non-uniform control flow on purpose: they record who ran together.
diagnostic(off, subgroup_uniformity);
// END SUBGROUPS ONLY

const WORKGROUP_SIZE: u32 = 128u;
// The `_no_sg` entry points' stand-in for a subgroup: the smallest subgroup WGSL allows.
const BLOCK: u32 = 4u;
// The ballot field of a record made without subgroups.
const NO_BALLOT: vec4<u32> = vec4<u32>(0u);

const SIDE_A: u32 = 1u;
const SIDE_B: u32 = 2u;

struct HandshakeParams {
    // The most flag checks a spin makes.
    cap: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct HandshakeRecord {
    // The subgroup's slot: workgroup * WORKGROUP_SIZE + the subgroup's first local index
    // (without subgroups, the block's).
    subgroup: u32,
    // subgroup_invocation_id (without subgroups, local_invocation_index % BLOCK).
    lane: u32,
    // The subgroup_size builtin (without subgroups, BLOCK).
    size: u32,
    // SIDE_A or SIDE_B; 0 where the lane never wrote its record.
    side: u32,
    // Flag checks the lane's spin made: 1..=cap.
    checks: u32,
    // 1 where the awaited flag was seen within the cap, 0 where the spin gave up.
    saw: u32,
    local_index: u32,
    _pad0: u32,
    // subgroupBallot(true) on the lane's side: the lanes it ran with (NO_BALLOT without subgroups).
    ballot: vec4<u32>,
}

// A read-only storage buffer, not a uniform buffer: lavapipe specializes on uniform values.
@group(0) @binding(0) var<storage, read> params: HandshakeParams;
// Two flags per subgroup slot: a at 2 * slot, b at 2 * slot + 1; zero before the dispatch.
// Each is a count: a of the A lanes that set it, b of the B lanes that saw a.
@group(0) @binding(1) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> records: array<HandshakeRecord>;

struct Lane {
    index: u32,
    local_index: u32,
    subgroup: u32,
    lane: u32,
    size: u32,
}

// Without subgroups: the aligned block of BLOCK consecutive local invocations stands for the
// subgroup, which holds it where subgroups are runs of consecutive local indices.
fn enter_block(local_index: u32, workgroup: u32) -> Lane {
    let index = workgroup * WORKGROUP_SIZE + local_index;
    return Lane(index, local_index, index - local_index % BLOCK, local_index % BLOCK, BLOCK);
}

// Parity of subgroup_invocation_id (or of the position in the block): both sides have lanes in
// every subgroup (size >= 4) and every block.
fn even_lane(me: Lane) -> bool {
    return me.lane % 2u == 0u;
}

// Checks `flag` until it is nonzero, at most `cap` times. Returns (checks made, 1 if seen).
fn spin(flag: u32, cap: u32) -> vec2<u32> {
    // Bounded: at most `cap` checks, then the lane gives up.
    for (var i = 0u; i < cap; i++) {
        if atomicLoad(&flags[flag]) != 0u {
            return vec2<u32>(i + 1u, 1u);
        }
    }
    return vec2<u32>(cap, 0u);
}

// `ballot` is taken on the lane's side by the caller: subgroupBallot(true), or NO_BALLOT.
fn side_a(me: Lane, ballot: vec4<u32>) {
    // Read once: a bound read in the loop condition could be reloaded every trip.
    let cap = params.cap;
    atomicAdd(&flags[2u * me.subgroup], 1u);
    let waited = spin(2u * me.subgroup + 1u, cap);
    records[me.index] = HandshakeRecord(me.subgroup, me.lane, me.size, SIDE_A, waited.x, waited.y, me.local_index, 0u, ballot);
}

fn side_b(me: Lane, ballot: vec4<u32>) {
    let cap = params.cap;
    let waited = spin(2u * me.subgroup, cap);
    if waited.y == 1u {
        atomicAdd(&flags[2u * me.subgroup + 1u], 1u);
    }
    records[me.index] = HandshakeRecord(me.subgroup, me.lane, me.size, SIDE_B, waited.x, waited.y, me.local_index, 0u, ballot);
}

// BEGIN SUBGROUPS ONLY
// In uniform control flow, before the branch: names the subgroup without assuming how local
// indices map to lanes.
fn enter(local_index: u32, workgroup: u32, lane: u32, size: u32) -> Lane {
    let first = subgroupBroadcastFirst(local_index);
    return Lane(workgroup * WORKGROUP_SIZE + local_index, local_index, workgroup * WORKGROUP_SIZE + first, lane, size);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn a_then(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    let me = enter(local_index, workgroup.x, lane, size);
    if even_lane(me) {
        side_a(me, subgroupBallot(true));
    } else {
        side_b(me, subgroupBallot(true));
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn a_else(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    let me = enter(local_index, workgroup.x, lane, size);
    if even_lane(me) {
        side_b(me, subgroupBallot(true));
    } else {
        side_a(me, subgroupBallot(true));
    }
}
// END SUBGROUPS ONLY

@compute @workgroup_size(WORKGROUP_SIZE)
fn a_then_no_sg(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
) {
    let me = enter_block(local_index, workgroup.x);
    if even_lane(me) {
        side_a(me, NO_BALLOT);
    } else {
        side_b(me, NO_BALLOT);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn a_else_no_sg(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
) {
    let me = enter_block(local_index, workgroup.x);
    if even_lane(me) {
        side_b(me, NO_BALLOT);
    } else {
        side_a(me, NO_BALLOT);
    }
}
