// Workgroup_id is uniform: a barrier under a condition on it is valid.
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    let w = wid.x;
    if w == 3u {
        workgroupBarrier();
    }
}
