// A while loop whose condition depends on a non-uniform value.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = lid;
    while x > 0u {
        x = x / 2u;
        workgroupBarrier();
    }
}
