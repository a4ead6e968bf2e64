// The elect pattern with subgroup_uniformity off.
enable subgroups;
diagnostic(off, subgroup_uniformity);
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    if subgroupElect() {
        out[wid.x] = subgroupAdd(1u);
    }
}
