// A subgroup builtin in a loop whose trip count differs per invocation.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    for (var i = 0u; i <= lane; i++) {
        let s = subgroupAdd(i);
    }
    let t = subgroupAdd(1u);
}
