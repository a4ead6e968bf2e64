// An inclusive scan's result differs per invocation: non-uniform at subgroup scope too.
enable subgroups;
@compute @workgroup_size(64)
fn main() {
    let prefix = subgroupInclusiveAdd(1u);
    if prefix == 1u {
        let s = subgroupAdd(1u);
    }
}
