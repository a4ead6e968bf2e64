// A pointee the callee leaves alone keeps its uniformity across the call.
fn peek(p: ptr<function, u32>) -> u32 {
    return *p + 1u;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 5u;
    let y = peek(&x);
    let z = x;
    if z == 5u {
        workgroupBarrier();
    }
}
