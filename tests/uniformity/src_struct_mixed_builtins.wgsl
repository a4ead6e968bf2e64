// A structure holding a non-uniform built-in is non-uniform as a whole (the spec's composite example).
struct Inputs {
    @builtin(workgroup_id) wgid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
}
@compute @workgroup_size(16)
fn main(inputs: Inputs) {
    if inputs.wgid.x == 1u {
        workgroupBarrier();
    }
}
