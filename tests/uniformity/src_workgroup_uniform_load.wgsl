// WorkgroupUniformLoad returns a uniform value from a workgroup variable.
var<workgroup> shared_flag: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        shared_flag = 1u;
    }
    let f = workgroupUniformLoad(&shared_flag);
    if f == 1u {
        workgroupBarrier();
    }
}
