// A subgroup-uniform value kept in a function-scope variable stays subgroup-uniform.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var m = subgroupMax(lid);
    let v = m;
    if v > 8u {
        let s = subgroupAdd(1u);
    }
}
