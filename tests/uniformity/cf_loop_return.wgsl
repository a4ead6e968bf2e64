// A non-uniform return in a loop leaves non-uniform control flow after it.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    for (var i = 0u; i < 8u; i++) {
        if i == lid { return; }
    }
    workgroupBarrier();
}
