// The spec visits error before warning and skips visited nodes: a warning reached only through the error's path is not triggered.
enable subgroups;
diagnostic(warning, subgroup_uniformity);
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    if lane < 4u {
        @diagnostic(error, subgroup_uniformity) {
            let a = subgroupAdd(1u);
        }
        let b = subgroupAdd(2u);
    }
}
