// A subgroup builtin in uniform control flow is valid.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let total = subgroupAdd(lid);
}
