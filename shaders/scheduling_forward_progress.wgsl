// Intra-subgroup forward progress (seeds 000, 001). In every subgroup, the lanes of one path of
// an if/else spin on an atomic flag that the lanes of the other path set. `spin_then` puts the
// spinners in the then-branch, `spin_else` in the else-branch: a scheduler that runs one whole
// side of a branch before the other shows the flag at the first check in one order and never in
// the other; one that gives diverged lanes forward progress shows it in both.
//
// Why no configuration can hang the GPU: every spin is a `for` loop of at most `params.cap`
// iterations, whatever the flag does, and the setters' path has no loop and no wait. So even a
// scheduler that runs the spinning lanes to the end before it lets the setters start finishes
// the spin after `cap` iterations, and then runs the setters. The host sizes `cap` so that a
// dispatch in which every spinner runs to the cap stays short, and its poll has a timeout too.
//
// Without subgroups (wgpu's GL backend, older GPUs) the `_no_sg` entry points run the same test
// per aligned block of BLOCK consecutive local invocations instead of per subgroup, split the
// same way by the position in the block, with no ballots. The host loads this file with its
// SUBGROUPS ONLY regions blanked (src/experiments/scheduling/mod.rs says why).
//
// Keep in sync with src/shaders/scheduling.rs (WORKGROUP_SIZE, SpinParams,
// SpinRecord, ROLE_*, NOT_SEEN) and scheduling/mod.rs (BLOCK).
// BEGIN SUBGROUPS ONLY
enable subgroups;
// The in-branch ballots run in non-uniform control flow on purpose: they record who spun.
diagnostic(off, subgroup_uniformity);
// END SUBGROUPS ONLY

const WORKGROUP_SIZE: u32 = 128u;
// The `_no_sg` entry points' stand-in for a subgroup: the smallest subgroup WGSL allows.
const BLOCK: u32 = 4u;
// The ballot field of a record made without subgroups.
const NO_BALLOT: vec4<u32> = vec4<u32>(0u);

const ROLE_SPINNER: u32 = 1u;
const ROLE_SETTER: u32 = 2u;
// A spinner that never saw the flag within the cap.
const NOT_SEEN: u32 = 0xffffffffu;

struct SpinParams {
    // The most flag checks a spinner makes.
    cap: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct SpinRecord {
    // The subgroup's flag index: workgroup * WORKGROUP_SIZE + the subgroup's first local index
    // (without subgroups, the block's).
    subgroup: u32,
    // subgroup_invocation_id (without subgroups, local_invocation_index % BLOCK).
    lane: u32,
    // The subgroup_size builtin (without subgroups, BLOCK).
    size: u32,
    // ROLE_SPINNER or ROLE_SETTER; 0 where the lane never wrote its record.
    role: u32,
    // Spinners: the check (0-based) at which the flag was first seen, or NOT_SEEN.
    seen: u32,
    local_index: u32,
    _pad0: u32,
    _pad1: u32,
    // subgroupBallot(true) on the lane's path: the lanes it ran with (NO_BALLOT without subgroups).
    ballot: vec4<u32>,
}

// A read-only storage buffer, not a uniform buffer: lavapipe specializes on uniform values.
@group(0) @binding(0) var<storage, read> params: SpinParams;
// One flag per subgroup, at its `subgroup` index; zero before the dispatch.
@group(0) @binding(1) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> records: array<SpinRecord>;

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

// The split uses the position in the subgroup (or block), so both paths have lanes in every full
// subgroup (or block).
fn first_half(me: Lane) -> bool {
    return me.lane < me.size / 2u;
}

// `ballot` is taken on the lane's path by the caller: subgroupBallot(true), or NO_BALLOT.
fn spin_on_flag(me: Lane, ballot: vec4<u32>) {
    // Read once: a bound read in the loop condition could be reloaded every trip.
    let cap = params.cap;
    var seen = NOT_SEEN;
    // Bounded: at most `cap` checks, then the lane gives up and records NOT_SEEN.
    for (var i = 0u; i < cap; i++) {
        if atomicLoad(&flags[me.subgroup]) != 0u {
            seen = i;
            break;
        }
    }
    records[me.index] = SpinRecord(me.subgroup, me.lane, me.size, ROLE_SPINNER, seen, me.local_index, 0u, 0u, ballot);
}

// Every setter sets the flag, whether or not any lane of its subgroup spins on it.
fn set_flag(me: Lane, ballot: vec4<u32>) {
    atomicStore(&flags[me.subgroup], 1u);
    records[me.index] = SpinRecord(me.subgroup, me.lane, me.size, ROLE_SETTER, 0u, me.local_index, 0u, 0u, ballot);
}

// BEGIN SUBGROUPS ONLY
// In uniform control flow, before the branch: names the subgroup without assuming how local
// indices map to lanes.
fn enter(local_index: u32, workgroup: u32, lane: u32, size: u32) -> Lane {
    let first = subgroupBroadcastFirst(local_index);
    return Lane(workgroup * WORKGROUP_SIZE + local_index, local_index, workgroup * WORKGROUP_SIZE + first, lane, size);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn spin_then(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    let me = enter(local_index, workgroup.x, lane, size);
    if first_half(me) {
        spin_on_flag(me, subgroupBallot(true));
    } else {
        set_flag(me, subgroupBallot(true));
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn spin_else(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    let me = enter(local_index, workgroup.x, lane, size);
    if first_half(me) {
        set_flag(me, subgroupBallot(true));
    } else {
        spin_on_flag(me, subgroupBallot(true));
    }
}
// END SUBGROUPS ONLY

@compute @workgroup_size(WORKGROUP_SIZE)
fn spin_then_no_sg(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
) {
    let me = enter_block(local_index, workgroup.x);
    if first_half(me) {
        spin_on_flag(me, NO_BALLOT);
    } else {
        set_flag(me, NO_BALLOT);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn spin_else_no_sg(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
) {
    let me = enter_block(local_index, workgroup.x);
    if first_half(me) {
        set_flag(me, NO_BALLOT);
    } else {
        spin_on_flag(me, NO_BALLOT);
    }
}
