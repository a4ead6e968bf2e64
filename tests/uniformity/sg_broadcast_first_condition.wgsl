// At subgroup scope subgroupBroadcastFirst is uniform, so a subgroup op under it is valid; a barrier is not.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let first = subgroupBroadcastFirst(lid);
    if first == 0u {
        let s = subgroupAdd(1u);
        workgroupBarrier();
    }
}
