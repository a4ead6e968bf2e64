// Num_subgroups is uniform.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(num_subgroups) n: u32) {
    if n > 1u {
        workgroupBarrier();
    }
}
