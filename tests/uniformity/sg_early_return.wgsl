// A non-uniform return before a subgroup builtin.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    if lane == 3u {
        return;
    }
    let s = subgroupAdd(1u);
}
