// Subgroup_invocation_id is non-uniform at both scopes.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    if lane == 0u {
        workgroupBarrier();
        let s = subgroupAdd(1u);
    }
}
