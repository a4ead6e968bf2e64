// A subgroup builtin in a loop bounded by a subgroup-uniform value.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    let n = subgroupMax(lane);
    for (var i = 0u; i < n; i++) {
        let s = subgroupAdd(i);
    }
}
