// A loop bounded by a reduction of a non-uniform value has non-uniform exits.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    let n = subgroupMax(lane);
    for (var i = 0u; i < n; i++) {
        let s = subgroupAdd(i);
    }
}
