// A plain load from a workgroup variable may be non-uniform.
var<workgroup> shared_flag: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        shared_flag = 1u;
    }
    workgroupBarrier();
    let f = shared_flag;
    if f == 1u {
        workgroupBarrier();
    }
}
