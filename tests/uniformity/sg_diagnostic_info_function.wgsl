// A @diagnostic attribute on the function sets the severity for calls inside it.
enable subgroups;
@diagnostic(info, subgroup_uniformity)
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    if lane < 4u {
        let m = subgroupMax(lane);
    }
}
