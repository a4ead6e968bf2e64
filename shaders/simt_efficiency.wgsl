// SIMT efficiency from ballots (seed 004: "warp execution efficiency falls as 32/k"). Each lane
// takes path subgroup_invocation_id % K; path p runs in iteration p of a loop over the K paths,
// and its lanes record the ballot of the lanes that ran it together. The host counts the lanes
// of each path instance. The one loop is bounded by K, a pipeline constant of at most 128.
// The host sets both overrides (src/experiments/simt_efficiency.rs).
enable subgroups;
diagnostic(off, subgroup_uniformity);

override WORKGROUP_SIZE: u32 = 64u;
override K: u32 = 1u;

// Two per invocation: (subgroup_invocation_id, subgroup_size, the smallest local index of its
// subgroup, workgroup), then the ballot taken on its path.
@group(0) @binding(0) var<storage, read_write> records: array<vec4<u32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) workgroup_id: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
) {
    // At entry, in uniform control flow: names the subgroup within its workgroup.
    let first = subgroupMin(local_index);
    let paths = clamp(K, 1u, 128u);
    let path = lane % paths;
    var ballot = vec4<u32>(0u);
    for (var p = 0u; p < paths; p++) {
        if path == p {
            ballot = subgroupBallot(true);
        }
    }
    records[2u * gid.x] = vec4<u32>(lane, size, first, workgroup_id.x);
    records[2u * gid.x + 1u] = ballot;
}
