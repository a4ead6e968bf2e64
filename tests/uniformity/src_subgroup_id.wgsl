// Subgroup_id is non-uniform at workgroup scope but uniform at subgroup scope.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_id) sid: u32) {
    let s = sid;
    if s == 0u {
        let t = subgroupAdd(1u);
        workgroupBarrier();
    }
}
