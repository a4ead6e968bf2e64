// The same function called in non-uniform control flow: the error is at the call.
fn sync() {
    workgroupBarrier();
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    sync();
    if lid == 0u {
        sync();
    }
}
