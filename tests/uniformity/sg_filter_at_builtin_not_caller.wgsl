// Filters apply where the builtin is called: off on the caller does not silence a helper's subgroup call.
enable subgroups;
fn total() -> u32 {
    return subgroupAdd(1u);
}
@diagnostic(off, subgroup_uniformity)
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    if lane < 4u {
        let t = total();
        let m = subgroupMax(lane);
    }
}
