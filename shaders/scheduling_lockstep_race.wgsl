// The lockstep-assumption race (seed 000, "What broke"): each subgroup sums its lanes' inputs
// with a tree reduction through workgroup memory. One entry point per variant:
// - `racy`: the pre-Volta warp-synchronous idiom. No barrier between the steps; it is correct
//   only if the subgroup's lanes run in lockstep, which nothing guarantees. In WGSL it is a data
//   race, and a data race may give any value: what it gives is a portability observation.
// - `racy_skewed`: the same, after a loop whose trip count differs per lane, so the lanes arrive
//   at the reduction at different times unless the hardware reconverges them at the loop's exit.
// - `with_barriers`: the same steps with workgroupBarrier() between them: correct.
// - `subgroup_add`: subgroupAdd: correct.
// Every lane reads the total back, as the idiom's callers do.
//
// Every loop has a constant bound, or the host-set `params.skew` times a constant.
//
// Without subgroups (wgpu's GL backend, older GPUs) the `_no_sg` entry points run the first three
// variants per aligned block of BLOCK consecutive local invocations instead of per subgroup;
// `subgroup_add` has no such form. The host loads this file with its SUBGROUPS ONLY regions
// blanked (src/experiments/scheduling/mod.rs says why).
//
// Keep in sync with src/shaders/scheduling.rs (WORKGROUP_SIZE, RaceParams,
// RaceRecord, Variant) and scheduling/mod.rs (BLOCK).
// BEGIN SUBGROUPS ONLY
enable subgroups;
// END SUBGROUPS ONLY

const WORKGROUP_SIZE: u32 = 128u;
// The `_no_sg` entry points' stand-in for a subgroup: the smallest subgroup WGSL allows.
const BLOCK: u32 = 4u;
// The first step's offset for the largest subgroup WGSL allows (128).
const MAX_OFFSET: u32 = 64u;

struct RaceParams {
    // Mixed into every input, so every run sums different numbers.
    seed: u32,
    // racy_skewed: lane l spins (l % 4) * skew iterations before it writes its input.
    skew: u32,
    // Records of this dispatch start at run * (number of invocations).
    run: u32,
    _pad0: u32,
}

struct RaceRecord {
    // The subgroup's slot in `scratch` (unique in the workgroup, taken with an atomic; without
    // subgroups, local_invocation_index / BLOCK).
    slot: u32,
    // subgroup_invocation_id (without subgroups, local_invocation_index % BLOCK).
    lane: u32,
    // The subgroup_size builtin (without subgroups, BLOCK).
    size: u32,
    // The lane's input.
    input: u32,
    // The total this lane read back.
    total: u32,
    local_index: u32,
    // 1 where the subgroup's slot fit in `scratch` and the reduction ran.
    valid: u32,
    _pad0: u32,
}

@group(0) @binding(0) var<storage, read> params: RaceParams;
@group(0) @binding(1) var<storage, read_write> records: array<RaceRecord>;

var<workgroup> scratch: array<u32, WORKGROUP_SIZE>;
var<workgroup> next_slot: atomic<u32>;

struct Lane {
    record: u32,
    local_index: u32,
    lane: u32,
    size: u32,
    slot: u32,
    base: u32,
    valid: bool,
}

fn hash(x: u32) -> u32 {
    var h = x * 0x9e3779b9u;
    h = (h ^ (h >> 16u)) * 0x85ebca6bu;
    return h ^ (h >> 13u);
}

// The lane's record for `slot` and its `lane` of `size` lanes: its group sums
// scratch[slot * size ..][.. size] when that fits.
fn lane_of(local_index: u32, workgroup: u32, groups: u32, lane: u32, size: u32, slot: u32) -> Lane {
    let base = slot * size;
    let global = workgroup * WORKGROUP_SIZE + local_index;
    let record = params.run * groups * WORKGROUP_SIZE + global;
    return Lane(record, local_index, lane, size, slot, base, base + size <= WORKGROUP_SIZE);
}

// Without subgroups: the aligned block of BLOCK consecutive local invocations stands for the
// subgroup, which holds it where subgroups are runs of consecutive local indices.
fn enter_block(local_index: u32, workgroup: u32, groups: u32) -> Lane {
    return lane_of(local_index, workgroup, groups, local_index % BLOCK, BLOCK, local_index / BLOCK);
}

fn input_of(me: Lane) -> u32 {
    return hash(me.record ^ params.seed) & 0xffffu;
}

fn finish(me: Lane, input: u32, total: u32) {
    records[me.record] = RaceRecord(me.slot, me.lane, me.size, input, total, me.local_index, u32(me.valid), 0u);
}

// One step of the tree: lane l adds lane l + offset's partial sum. Within a step the lanes read
// at or above `offset` and write below it, so a step needs no barrier of its own; the steps do.
fn step(me: Lane, offset: u32) {
    if me.valid && offset < me.size && me.lane < offset {
        scratch[me.base + me.lane] += scratch[me.base + me.lane + offset];
    }
}

fn total_of(me: Lane) -> u32 {
    if me.valid {
        return scratch[me.base];
    }
    return 0u;
}

// The warp-synchronous steps, offsets size/2, ..., 1, with no barrier anywhere. Bounded:
// 7 steps.
fn racy_steps(me: Lane) -> u32 {
    for (var offset = MAX_OFFSET; offset > 0u; offset >>= 1u) {
        step(me, offset);
    }
    return total_of(me);
}

fn racy_body(me: Lane) {
    let input = input_of(me);
    if me.valid {
        scratch[me.base + me.lane] = input;
    }
    finish(me, input, racy_steps(me));
}

fn racy_skewed_body(me: Lane) {
    // A per-lane delay whose result is the input, so it cannot be dropped. Bounded: at most
    // 3 * params.skew iterations.
    let delay = (me.lane % 4u) * params.skew;
    var input = input_of(me);
    for (var i = 0u; i < delay; i++) {
        input = hash(input + i);
    }
    input = input & 0xffffu;
    if me.valid {
        scratch[me.base + me.lane] = input;
    }
    finish(me, input, racy_steps(me));
}

// Called in uniform control flow only: it holds barriers.
fn with_barriers_body(me: Lane) {
    let input = input_of(me);
    if me.valid {
        scratch[me.base + me.lane] = input;
    }
    workgroupBarrier();
    // The same steps as `racy_steps`, a barrier after each. Constant bound and no early exit,
    // so every barrier is in uniform control flow.
    for (var offset = MAX_OFFSET; offset > 0u; offset >>= 1u) {
        step(me, offset);
        workgroupBarrier();
    }
    let total = total_of(me);
    finish(me, input, total);
}

// BEGIN SUBGROUPS ONLY
// In uniform control flow at entry. The subgroup's slot gives it a contiguous block of
// `scratch` without assuming how local indices map to lanes. The lowest active lane is the
// one whose exclusive prefix count is 0 (naga 30 has no subgroupElect).
fn enter(local_index: u32, workgroup: u32, groups: u32, lane: u32, size: u32) -> Lane {
    let elected = subgroupExclusiveAdd(1u) == 0u;
    let taken = atomicAdd(&next_slot, select(0u, 1u, elected));
    let slot = subgroupMax(select(0u, taken, elected));
    return lane_of(local_index, workgroup, groups, lane, size, slot);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn racy(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    racy_body(enter(local_index, workgroup.x, groups.x, lane, size));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn racy_skewed(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    racy_skewed_body(enter(local_index, workgroup.x, groups.x, lane, size));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn with_barriers(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    with_barriers_body(enter(local_index, workgroup.x, groups.x, lane, size));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn subgroup_add(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    let me = enter(local_index, workgroup.x, groups.x, lane, size);
    let input = input_of(me);
    finish(me, input, subgroupAdd(input));
}
// END SUBGROUPS ONLY

@compute @workgroup_size(WORKGROUP_SIZE)
fn racy_no_sg(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    racy_body(enter_block(local_index, workgroup.x, groups.x));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn racy_skewed_no_sg(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    racy_skewed_body(enter_block(local_index, workgroup.x, groups.x));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn with_barriers_no_sg(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    with_barriers_body(enter_block(local_index, workgroup.x, groups.x));
}
