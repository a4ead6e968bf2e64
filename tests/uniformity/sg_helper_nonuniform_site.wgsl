// A helper containing a subgroup builtin gets a subgroup_uniformity call-site tag.
enable subgroups;
fn lowest(x: u32) -> u32 {
    return subgroupMin(x);
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let a = lowest(lid);
    if lid % 2u == 0u {
        let b = lowest(lid);
    }
}
