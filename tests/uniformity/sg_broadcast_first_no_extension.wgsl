// Without the subgroup_uniformity extension subgroup builtins are checked at workgroup scope, where every subgroup result is non-uniform.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let first = subgroupBroadcastFirst(lid);
    if first == 0u {
        let s = subgroupAdd(1u);
    }
}
