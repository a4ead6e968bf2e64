// The spec's workaround for the composite limitation: separate parameters keep workgroup_id uniform.
@compute @workgroup_size(16)
fn main(@builtin(workgroup_id) wgid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if wgid.x == 1u {
        workgroupBarrier();
    }
}
