// At subgroup scope subgroupBroadcastFirst of a uniform value is uniform: a subgroup op under it is valid, a barrier is not.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_size) size: u32) {
    let first = subgroupBroadcastFirst(size);
    if first == 0u {
        let s = subgroupAdd(1u);
        workgroupBarrier();
    }
}
