// WorkgroupUniformLoad is a barrier: in non-uniform control flow it is an error.
var<workgroup> shared_flag: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid < 32u {
        let f = workgroupUniformLoad(&shared_flag);
    }
}
