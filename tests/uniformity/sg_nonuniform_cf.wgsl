// A subgroup builtin in non-uniform control flow triggers subgroup_uniformity, an error by default.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    if lane < 4u {
        let m = subgroupMin(lane);
    }
}
