// SubgroupElect() is true in one invocation: a subgroup builtin under it is an error.
enable subgroups;
@compute @workgroup_size(64)
fn main() {
    if subgroupElect() {
        let s = subgroupAdd(1u);
    }
}
