// Convergence scenarios: one entry point per scenario. At numbered record points every
// invocation that gets there records its ballot (the set it is active with), a value (a subgroup
// operation's result or its id) and its ids. The CPU model in src/model/convergence.rs mirrors
// each entry point's control flow; keep the two in sync, point numbers included.
//
// Conditions are on the lane (`subgroup_invocation_id`) or the local index, so every scenario
// diverges inside each subgroup whatever its size. Every loop has a constant bound.
enable subgroups;
// Subgroup ops in divergent branches are the point of these scenarios.
diagnostic(off, subgroup_uniformity);

// One workgroup of this size; keep in sync with WORKGROUP_SIZE in src/shaders/convergence.rs.
const WORKGROUP_SIZE: u32 = 128u;

// Keep in sync with `ConvergenceRecord` in src/shaders/convergence.rs. A record that was never
// written stays zero; a written one always has the writer's own bit in `ballot`.
struct Record {
    ballot: vec4<u32>,
    value: u32,
    local_index: u32,
    lane: u32,
    // The local index of the subgroup's first invocation at entry: names the subgroup without
    // assuming how local indices map to lanes.
    subgroup: u32,
    // The subgroup_size builtin: a driver may pick a different size per pipeline.
    size: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<storage, read_write> records: array<Record>;

struct Me {
    id: u32,
    lane: u32,
    subgroup: u32,
    size: u32,
}

var<private> me: Me;

// Point 0 of every scenario, in uniform control flow.
fn enter(id: u32, lane: u32, size: u32) {
    me = Me(id, lane, subgroupBroadcastFirst(id), size);
    record(0u, id);
}

// The ballot is taken right after the caller computed `value`, in the same block.
fn record(point: u32, value: u32) {
    let ballot = subgroupBallot(true);
    records[point * WORKGROUP_SIZE + me.id] = Record(ballot, value, me.id, me.lane, me.subgroup, me.size, 0u, 0u, 0u);
}

fn count_active() -> u32 {
    return subgroupAdd(1u);
}

// Seed 003's example: each branch's subgroupMin/Max acts among that branch's invocations only.
@compute @workgroup_size(WORKGROUP_SIZE)
fn if_else(
    @builtin(local_invocation_index) id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    enter(id, lane, size);
    if (id & 1u) == 0u {
        record(1u, subgroupMin(id));
        record(2u, subgroupMax(id));
    } else {
        record(3u, subgroupMin(id));
        record(4u, subgroupMax(id));
    }
    record(5u, count_active());
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn if_no_else(
    @builtin(local_invocation_index) id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    enter(id, lane, size);
    if lane % 3u == 0u {
        record(1u, count_active());
    }
    record(2u, count_active());
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn nested_if(
    @builtin(local_invocation_index) id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    enter(id, lane, size);
    if lane < size / 2u {
        record(1u, count_active());
        if (lane & 1u) == 1u {
            record(2u, count_active());
        }
        record(3u, count_active());
    }
    record(4u, count_active());
}

// Seed 003: divergence is per case group; `case 0, 2` is one group, `case 3, default` another.
@compute @workgroup_size(WORKGROUP_SIZE)
fn switch_case_groups(
    @builtin(local_invocation_index) id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    enter(id, lane, size);
    switch lane % 5u {
        case 0u, 2u: {
            record(1u, subgroupMin(id));
        }
        case 1u: {
            record(2u, subgroupMin(id));
        }
        case 3u, default: {
            record(3u, subgroupMin(id));
        }
    }
    record(4u, count_active());
}

// Trip counts 50 and 51 by parity: the last iteration runs with the odd invocations only.
@compute @workgroup_size(WORKGROUP_SIZE)
fn loop_trip_count(
    @builtin(local_invocation_index) id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    enter(id, lane, size);
    let trips = 50u + (id & 1u);
    for (var i = 0u; i < trips; i++) {
        if i >= 48u {
            record(1u + (i - 48u), count_active());
        }
    }
    record(4u, count_active());
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn break_continue(
    @builtin(local_invocation_index) id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    enter(id, lane, size);
    for (var i = 0u; i < 6u; i++) {
        if i == lane % 4u {
            continue;
        }
        record(1u + i, count_active());
        if i == 2u + lane % 3u {
            break;
        }
    }
    record(7u, count_active());
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn early_return(
    @builtin(local_invocation_index) id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    enter(id, lane, size);
    if lane % 4u == 3u {
        return;
    }
    record(1u, count_active());
}

// One function body, reached from two call sites: per the SPIR-V model those are different
// dynamic instances, so the two callers' invocations must not share a ballot.
fn called_divergently() {
    record(1u, count_active());
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn function_call(
    @builtin(local_invocation_index) id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    enter(id, lane, size);
    let r = lane % 3u;
    if r == 0u {
        called_divergently();
    } else if r == 1u {
        called_divergently();
    }
    record(2u, count_active());
}

// divlab rewrites `subgroupElect()` to `subgroupExclusiveAdd(1u) == 0u` for naga 30, which has
// no definition of it (src/gpu/shader.rs); the meaning is the same.
@compute @workgroup_size(WORKGROUP_SIZE)
fn elect(
    @builtin(local_invocation_index) id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    enter(id, lane, size);
    if subgroupElect() {
        record(1u, id);
    }
    record(2u, count_active());
    if (lane & 1u) == 1u {
        record(3u, select(0u, 1u, subgroupElect()));
    }
    record(4u, count_active());
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn broadcast_first(
    @builtin(local_invocation_index) id: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    enter(id, lane, size);
    if (lane & 1u) == 1u {
        record(1u, subgroupBroadcastFirst(id));
    } else {
        record(2u, subgroupBroadcastFirst(id));
    }
    record(3u, subgroupBroadcastFirst(id));
}
