// Observes the subgroup size from a ballot's popcount, and the mapping from
// local_invocation_index to subgroup_invocation_id.
// Keep in sync with src/shaders/subgroup_size.rs (WORKGROUP_SIZE, SizeRecord).
enable subgroups;

const WORKGROUP_SIZE: u32 = 128u;

struct SizeRecord {
    local_index: u32,
    subgroup_invocation_id: u32,
    subgroup_size: u32,
    ballot_popcount: u32,
    // The smallest local index in this invocation's subgroup: names the subgroup.
    subgroup_first_index: u32,
    workgroup: u32,
    _pad0: u32,
    _pad1: u32,
    ballot: vec4<u32>,
}

@group(0) @binding(0) var<storage, read_write> records: array<SizeRecord>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
    @builtin(subgroup_invocation_id) subgroup_invocation_id: u32,
    @builtin(subgroup_size) subgroup_size: u32,
) {
    // At entry, in uniform control flow: every invocation of the subgroup should be active.
    let ballot = subgroupBallot(true);
    let popcount = countOneBits(ballot.x) + countOneBits(ballot.y)
        + countOneBits(ballot.z) + countOneBits(ballot.w);
    let first = subgroupMin(local_index);
    records[workgroup_id.x * WORKGROUP_SIZE + local_index] = SizeRecord(
        local_index,
        subgroup_invocation_id,
        subgroup_size,
        popcount,
        first,
        workgroup_id.x,
        0u,
        0u,
        ballot,
    );
}
