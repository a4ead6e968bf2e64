// Num_workgroups is uniform.
@compute @workgroup_size(64)
fn main(@builtin(num_workgroups) groups: vec3<u32>) {
    for (var i = 0u; i < groups.x; i++) {
        workgroupBarrier();
    }
}
