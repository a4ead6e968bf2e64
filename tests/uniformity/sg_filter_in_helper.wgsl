// Off inside the helper removes its call-site tag: calling it anywhere is valid.
enable subgroups;
@diagnostic(off, subgroup_uniformity)
fn total() -> u32 {
    return subgroupAdd(1u);
}
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    if lane < 4u {
        let t = total();
    }
}
