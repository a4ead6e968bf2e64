// Diagnostic(off, subgroup_uniformity) removes the call-site requirement.
enable subgroups;
diagnostic(off, subgroup_uniformity);
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    if lane < 4u {
        let m = subgroupMin(lane);
    }
}
