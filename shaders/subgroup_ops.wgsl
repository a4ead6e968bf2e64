// The subgroup-operation catalog: every WGSL subgroup and quad builtin, run in uniform control
// flow and under split predicates, with the active set each lane observed recorded beside it.
// One dispatch per split; `params.split` says which. No loops.
// Keep in sync with src/shaders/subgroup_ops.rs (WORKGROUP_SIZE, BUILTINS, MASK_WORDS, the
// SPLIT_* and OP_* numbers, OpsParams, OpsRecord, lane_data, the predicates and the arguments
// of each op, which `expected` mirrors).
enable subgroups;
// The ops run in non-uniform control flow on purpose: what they do there is what is observed.
diagnostic(off, subgroup_uniformity);

const WORKGROUP_SIZE: u32 = 128u;
const BUILTINS: u32 = 25u;
// One bit per invocation of the dispatch, for SPLIT_RANDOM: 2 workgroups of 128.
const MASK_WORDS: u32 = 8u;

const SPLIT_UNIFORM: u32 = 0u;
const SPLIT_EVEN: u32 = 1u;
const SPLIT_ODD: u32 = 2u;
const SPLIT_LOWER_HALF: u32 = 3u;
const SPLIT_UPPER_HALF: u32 = 4u;
const SPLIT_FIRST_TWO: u32 = 5u;
const SPLIT_RANDOM: u32 = 6u;

// Result slots, one per builtin.
const OP_ADD: u32 = 0u;
const OP_MUL: u32 = 1u;
const OP_MIN: u32 = 2u;
const OP_MAX: u32 = 3u;
const OP_AND: u32 = 4u;
const OP_OR: u32 = 5u;
const OP_XOR: u32 = 6u;
const OP_EXCLUSIVE_ADD: u32 = 7u;
const OP_EXCLUSIVE_MUL: u32 = 8u;
const OP_INCLUSIVE_ADD: u32 = 9u;
const OP_INCLUSIVE_MUL: u32 = 10u;
const OP_ALL: u32 = 11u;
const OP_ANY: u32 = 12u;
const OP_BALLOT: u32 = 13u;
const OP_BROADCAST: u32 = 14u;
const OP_BROADCAST_FIRST: u32 = 15u;
const OP_ELECT: u32 = 16u;
const OP_SHUFFLE: u32 = 17u;
const OP_SHUFFLE_XOR: u32 = 18u;
const OP_SHUFFLE_UP: u32 = 19u;
const OP_SHUFFLE_DOWN: u32 = 20u;
const OP_QUAD_BROADCAST: u32 = 21u;
const OP_QUAD_SWAP_X: u32 = 22u;
const OP_QUAD_SWAP_Y: u32 = 23u;
const OP_QUAD_SWAP_DIAGONAL: u32 = 24u;

struct OpsParams {
    split: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    // Bit i of the array is invocation i of the dispatch (workgroup * WORKGROUP_SIZE + local).
    mask: array<u32, MASK_WORDS>,
}

struct Ops {
    // subgroupBallot(true) taken first in the block: the observed active set.
    active_set: vec4<u32>,
    results: array<vec4<u32>, BUILTINS>,
}

struct OpsRecord {
    local_index: u32,
    subgroup_invocation_id: u32,
    subgroup_size: u32,
    // subgroupBroadcastFirst(local_index) at entry: names the subgroup in its workgroup.
    subgroup_first_index: u32,
    workgroup: u32,
    // 1 where this invocation ran the ops in this split.
    executed: u32,
    _pad0: u32,
    _pad1: u32,
    active_set: vec4<u32>,
    results: array<vec4<u32>, BUILTINS>,
}

@group(0) @binding(0) var<storage, read> params: OpsParams;
// One block of records per split: records[split * invocations + global index].
@group(0) @binding(1) var<storage, read_write> records: array<OpsRecord>;

// Distinct within a workgroup (37 is coprime to the prime 251), never zero, small.
fn lane_data(local_index: u32, workgroup: u32) -> u32 {
    return 1u + (local_index * 37u + workgroup * 11u) % 251u;
}

fn in_split(sid: u32, size: u32, global_index: u32) -> bool {
    switch params.split {
        case SPLIT_EVEN: { return sid % 2u == 0u; }
        case SPLIT_ODD: { return sid % 2u == 1u; }
        case SPLIT_LOWER_HALF: { return sid < size / 2u; }
        case SPLIT_UPPER_HALF: { return sid >= size / 2u; }
        case SPLIT_FIRST_TWO: { return sid < 2u; }
        case SPLIT_RANDOM: {
            return ((params.mask[global_index / 32u] >> (global_index % 32u)) & 1u) == 1u;
        }
        default: { return false; }
    }
}

// Every op on one line that starts with `out[OP_`: the host blanks the line of a builtin the
// adapter rejects and runs the rest. Broadcast and quadBroadcast ids must be constants.
fn run_ops(v: u32, sid: u32, size: u32) -> Ops {
    let active_set = subgroupBallot(true);
    // Odd factors keep products from collapsing to 0 modulo 2^32 on large subgroups.
    let odd = v | 1u;
    let pa = v % 3u != 0u;
    let pb = v < 128u;
    let next = (sid + 1u) & (size - 1u);
    let mirror = size - 1u - sid;
    let half = size / 2u;
    var out: array<vec4<u32>, BUILTINS>;
    out[OP_ADD] = vec4(subgroupAdd(v), 0u, 0u, 0u);
    out[OP_MUL] = vec4(subgroupMul(odd), 0u, 0u, 0u);
    out[OP_MIN] = vec4(subgroupMin(v), 0u, 0u, 0u);
    out[OP_MAX] = vec4(subgroupMax(v), 0u, 0u, 0u);
    out[OP_AND] = vec4(subgroupAnd(v), 0u, 0u, 0u);
    out[OP_OR] = vec4(subgroupOr(v), 0u, 0u, 0u);
    out[OP_XOR] = vec4(subgroupXor(v), 0u, 0u, 0u);
    out[OP_EXCLUSIVE_ADD] = vec4(subgroupExclusiveAdd(v), 0u, 0u, 0u);
    out[OP_EXCLUSIVE_MUL] = vec4(subgroupExclusiveMul(odd), 0u, 0u, 0u);
    out[OP_INCLUSIVE_ADD] = vec4(subgroupInclusiveAdd(v), 0u, 0u, 0u);
    out[OP_INCLUSIVE_MUL] = vec4(subgroupInclusiveMul(odd), 0u, 0u, 0u);
    out[OP_ALL] = vec4(u32(subgroupAll(pa)), u32(subgroupAll(pb)), u32(subgroupAll(true)), 0u);
    out[OP_ANY] = vec4(u32(subgroupAny(pa)), u32(subgroupAny(pb)), u32(subgroupAny(false)), 0u);
    out[OP_BALLOT] = subgroupBallot(pa);
    out[OP_BROADCAST] = vec4(subgroupBroadcast(v, 0u), subgroupBroadcast(v, 1u), subgroupBroadcast(v, 2u), subgroupBroadcast(v, 3u));
    out[OP_BROADCAST_FIRST] = vec4(subgroupBroadcastFirst(v), 0u, 0u, 0u);
    out[OP_ELECT] = vec4(u32(subgroupElect()), 0u, 0u, 0u);
    out[OP_SHUFFLE] = vec4(subgroupShuffle(v, next), subgroupShuffle(v, mirror), subgroupShuffle(v, sid), subgroupShuffle(v, 0u));
    out[OP_SHUFFLE_XOR] = vec4(subgroupShuffleXor(v, 1u), subgroupShuffleXor(v, 2u), subgroupShuffleXor(v, 3u), subgroupShuffleXor(v, size - 1u));
    out[OP_SHUFFLE_UP] = vec4(subgroupShuffleUp(v, 1u), subgroupShuffleUp(v, 2u), subgroupShuffleUp(v, 3u), subgroupShuffleUp(v, half));
    out[OP_SHUFFLE_DOWN] = vec4(subgroupShuffleDown(v, 1u), subgroupShuffleDown(v, 2u), subgroupShuffleDown(v, 3u), subgroupShuffleDown(v, half));
    out[OP_QUAD_BROADCAST] = vec4(quadBroadcast(v, 0u), quadBroadcast(v, 1u), quadBroadcast(v, 2u), quadBroadcast(v, 3u));
    out[OP_QUAD_SWAP_X] = vec4(quadSwapX(v), 0u, 0u, 0u);
    out[OP_QUAD_SWAP_Y] = vec4(quadSwapY(v), 0u, 0u, 0u);
    out[OP_QUAD_SWAP_DIAGONAL] = vec4(quadSwapDiagonal(v), 0u, 0u, 0u);
    return Ops(active_set, out);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
    @builtin(num_workgroups) num_workgroups: vec3<u32>,
    @builtin(subgroup_invocation_id) sid: u32,
    @builtin(subgroup_size) size: u32,
) {
    // At entry, in uniform control flow, whatever the lane mapping.
    let first = subgroupBroadcastFirst(local_index);
    let global_index = workgroup_id.x * WORKGROUP_SIZE + local_index;
    let v = lane_data(local_index, workgroup_id.x);
    var record = OpsRecord();
    record.local_index = local_index;
    record.subgroup_invocation_id = sid;
    record.subgroup_size = size;
    record.subgroup_first_index = first;
    record.workgroup = workgroup_id.x;
    // `params.split` is uniform, so the first branch keeps the ops in uniform control flow.
    var ops: Ops;
    if params.split == SPLIT_UNIFORM {
        ops = run_ops(v, sid, size);
        record.executed = 1u;
    } else if in_split(sid, size, global_index) {
        ops = run_ops(v, sid, size);
        record.executed = 1u;
    }
    record.active_set = ops.active_set;
    record.results = ops.results;
    records[params.split * num_workgroups.x * WORKGROUP_SIZE + global_index] = record;
}
