// A @diagnostic attribute on a compound statement overrides the global directive inside it only.
enable subgroups;
diagnostic(warning, subgroup_uniformity);
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    if lane < 4u {
        @diagnostic(error, subgroup_uniformity) {
            let a = subgroupAdd(1u);
        }
    }
    if lane < 2u {
        let b = subgroupAdd(2u);
    }
}
