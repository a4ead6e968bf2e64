// A @diagnostic attribute on an if statement covers that statement only (naga rejects it; divlab reads it from the text).
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    @diagnostic(off, subgroup_uniformity)
    if lane < 4u {
        let a = subgroupAdd(1u);
    } else {
        let b = subgroupAdd(2u);
    }
    if lane < 2u {
        let c = subgroupAdd(3u);
    }
}
