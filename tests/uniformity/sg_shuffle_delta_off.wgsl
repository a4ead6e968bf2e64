// With subgroup_uniformity off a non-uniform delta is accepted.
enable subgroups;
diagnostic(off, subgroup_uniformity);
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    let b = subgroupShuffleDown(lane, lane % 4u);
}
