// Local_invocation_id is non-uniform: any component of it makes the condition non-uniform.
@compute @workgroup_size(8, 8)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
    let y = lid.y;
    if y < 4u {
        storageBarrier();
    }
}
