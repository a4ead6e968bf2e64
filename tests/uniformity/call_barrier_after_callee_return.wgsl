// A barrier after a non-uniform return inside the callee makes the callee's requirement fail in the callee.
fn helper(x: u32) {
    if x == 0u {
        return;
    }
    workgroupBarrier();
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    helper(4u);
    helper(lid);
}
