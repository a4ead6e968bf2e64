// Subgroup results at both scopes: reductions and broadcasts are subgroup-uniform, scans and shuffles are not.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    let a = subgroupAdd(lane);
    let b = subgroupBallot(lane > 2u);
    let c = subgroupBroadcast(lane, 3u);
    let d = subgroupExclusiveMul(lane);
    let e = subgroupShuffle(lane, 0u);
    let f = subgroupAny(lane == 0u);
    let g = a + 1u;
}
