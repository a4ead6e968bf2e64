// A reduction of non-uniform data is non-uniform at subgroup scope too (parameter return tag).
enable subgroups;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let any_big = subgroupAny(data[lid] > 100u);
    if any_big {
        let m = subgroupMax(data[lid]);
        data[lid] = m;
    }
}
