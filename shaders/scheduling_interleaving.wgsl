// Interleaving order (seeds 000, 001): lanes on both sides of a divergent branch take tickets
// from their subgroup's atomic counter at POINTS points along their paths. The ticket order says
// whether one side ran to its end before the other (serialization, as under a reconvergence
// stack) or the two sides interleaved. Between tickets each side does its own bounded work, so
// a compiler cannot merge the two sides into one.
//
// Without subgroups (wgpu's GL backend, older GPUs) `main_no_sg` takes the tickets per aligned
// block of BLOCK consecutive local invocations instead of per subgroup, split the same way by
// parity, with no ballots. The host loads this file with its SUBGROUPS ONLY regions blanked
// (src/experiments/scheduling/mod.rs says why).
//
// Every loop has a constant bound. Keep in sync with src/shaders/scheduling.rs
// (WORKGROUP_SIZE, POINTS, TicketRecord, SIDE_*) and scheduling/mod.rs (BLOCK).
// BEGIN SUBGROUPS ONLY
enable subgroups;
// The in-branch ballots run in non-uniform control flow on purpose: they record who ran together.
diagnostic(off, subgroup_uniformity);
// END SUBGROUPS ONLY

const WORKGROUP_SIZE: u32 = 128u;
// `main_no_sg`'s stand-in for a subgroup: the smallest subgroup WGSL allows.
const BLOCK: u32 = 4u;
// The ballot field of a record made without subgroups.
const NO_BALLOT: vec4<u32> = vec4<u32>(0u);
// Tickets per lane. Keep in sync with the ticket calls below.
const POINTS: u32 = 4u;
// Work between two tickets: small, so a side's tickets stay close unless the scheduler switches.
const WORK: u32 = 16u;

const SIDE_THEN: u32 = 1u;
const SIDE_ELSE: u32 = 2u;

struct TicketRecord {
    // The subgroup's counter index: workgroup * WORKGROUP_SIZE + its first local index (without
    // subgroups, the block's).
    subgroup: u32,
    // subgroup_invocation_id (without subgroups, local_invocation_index % BLOCK).
    lane: u32,
    // The subgroup_size builtin (without subgroups, BLOCK).
    size: u32,
    // SIDE_THEN or SIDE_ELSE; 0 where the lane never wrote its record.
    side: u32,
    tickets: vec4<u32>,
    // subgroupBallot(true) at the side's first ticket (NO_BALLOT without subgroups).
    ballot: vec4<u32>,
    local_index: u32,
    // The side's work, stored so it cannot be dropped.
    work: u32,
    _pad0: u32,
    _pad1: u32,
}

// One counter per subgroup, at its `subgroup` index; zero before the dispatch.
@group(0) @binding(0) var<storage, read_write> counters: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> records: array<TicketRecord>;

fn then_work(x: u32) -> u32 {
    var h = x;
    for (var i = 0u; i < WORK; i++) {
        h = h * 1664525u + 1013904223u;
    }
    return h;
}

fn else_work(x: u32) -> u32 {
    var h = x;
    for (var i = 0u; i < WORK; i++) {
        h = (h ^ (h >> 15u)) * 0x2c1b3c6du;
    }
    return h;
}

// Who takes tickets where: `subgroup` names the counter, `lane` the position in the group.
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

// Even and odd lanes: both sides have lanes in every subgroup (and every block).
fn takes_then(me: Lane) -> bool {
    return (me.lane & 1u) == 0u;
}

// `ballot` is taken on the side by the caller: subgroupBallot(true), or NO_BALLOT.
fn then_side(me: Lane, ballot: vec4<u32>) {
    var h = then_work(me.index);
    let t0 = atomicAdd(&counters[me.subgroup], 1u);
    h = then_work(h ^ t0);
    let t1 = atomicAdd(&counters[me.subgroup], 1u);
    h = then_work(h ^ t1);
    let t2 = atomicAdd(&counters[me.subgroup], 1u);
    h = then_work(h ^ t2);
    let t3 = atomicAdd(&counters[me.subgroup], 1u);
    h = then_work(h ^ t3);
    records[me.index] = TicketRecord(me.subgroup, me.lane, me.size, SIDE_THEN, vec4(t0, t1, t2, t3), ballot, me.local_index, h, 0u, 0u);
}

fn else_side(me: Lane, ballot: vec4<u32>) {
    var h = else_work(me.index);
    let t0 = atomicAdd(&counters[me.subgroup], 1u);
    h = else_work(h ^ t0);
    let t1 = atomicAdd(&counters[me.subgroup], 1u);
    h = else_work(h ^ t1);
    let t2 = atomicAdd(&counters[me.subgroup], 1u);
    h = else_work(h ^ t2);
    let t3 = atomicAdd(&counters[me.subgroup], 1u);
    h = else_work(h ^ t3);
    records[me.index] = TicketRecord(me.subgroup, me.lane, me.size, SIDE_ELSE, vec4(t0, t1, t2, t3), ballot, me.local_index, h, 0u, 0u);
}

// BEGIN SUBGROUPS ONLY
@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    // In uniform control flow: names the subgroup without assuming a lane mapping.
    let subgroup = workgroup.x * WORKGROUP_SIZE + subgroupBroadcastFirst(local_index);
    let index = workgroup.x * WORKGROUP_SIZE + local_index;
    let me = Lane(index, local_index, subgroup, lane, size);
    if takes_then(me) {
        then_side(me, subgroupBallot(true));
    } else {
        else_side(me, subgroupBallot(true));
    }
}
// END SUBGROUPS ONLY

@compute @workgroup_size(WORKGROUP_SIZE)
fn main_no_sg(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
) {
    let me = enter_block(local_index, workgroup.x);
    if takes_then(me) {
        then_side(me, NO_BALLOT);
    } else {
        else_side(me, NO_BALLOT);
    }
}
