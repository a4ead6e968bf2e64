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
// Keep in sync with src/experiments/scheduling/lockstep_race.rs (WORKGROUP_SIZE, RaceParams,
// RaceRecord, Variant).
enable subgroups;

const WORKGROUP_SIZE: u32 = 128u;
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
    // The subgroup's slot in `scratch` (unique in the workgroup, taken with an atomic).
    slot: u32,
    lane: u32,
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

// In uniform control flow at entry. The subgroup's slot gives it a contiguous block of
// `scratch` without assuming how local indices map to lanes. The lowest active lane is the
// one whose exclusive prefix count is 0 (naga 30 has no subgroupElect).
fn enter(local_index: u32, workgroup: u32, groups: u32, lane: u32, size: u32) -> Lane {
    let elected = subgroupExclusiveAdd(1u) == 0u;
    let taken = atomicAdd(&next_slot, select(0u, 1u, elected));
    let slot = subgroupMax(select(0u, taken, elected));
    let base = slot * size;
    let global = workgroup * WORKGROUP_SIZE + local_index;
    let record = params.run * groups * WORKGROUP_SIZE + global;
    return Lane(record, local_index, lane, size, slot, base, base + size <= WORKGROUP_SIZE);
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

@compute @workgroup_size(WORKGROUP_SIZE)
fn racy(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    let me = enter(local_index, workgroup.x, groups.x, lane, size);
    let input = input_of(me);
    if me.valid {
        scratch[me.base + me.lane] = input;
    }
    finish(me, input, racy_steps(me));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn racy_skewed(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    let me = enter(local_index, workgroup.x, groups.x, lane, size);
    // A per-lane delay whose result is the input, so it cannot be dropped. Bounded: at most
    // 3 * params.skew iterations.
    let delay = (lane % 4u) * params.skew;
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

@compute @workgroup_size(WORKGROUP_SIZE)
fn with_barriers(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    let me = enter(local_index, workgroup.x, groups.x, lane, size);
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
