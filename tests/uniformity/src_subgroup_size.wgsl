// Subgroup_size is uniform in a compute shader, at workgroup scope too.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_size) size: u32) {
    let big = size >= 32u;
    if big {
        workgroupBarrier();
    }
}
