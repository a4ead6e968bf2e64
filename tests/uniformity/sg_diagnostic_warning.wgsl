// Diagnostic(warning, subgroup_uniformity) turns the failure into a warning.
enable subgroups;
diagnostic(warning, subgroup_uniformity);
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    if lane < 4u {
        let m = subgroupMax(lane);
    }
}
