// Subgroup results of a uniform value: reductions and broadcasts are subgroup-uniform, scans and shuffles are not.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_size) size: u32) {
    let a = subgroupAdd(size);
    let b = subgroupBallot(size > 2u);
    let c = subgroupBroadcast(size, 3u);
    let d = subgroupExclusiveMul(size);
    let e = subgroupShuffle(size, 0u);
    let f = subgroupAny(size == 0u);
    let g = a + 1u;
}
