// A for loop bounded by a non-uniform value iterates non-uniformly.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    for (var i = 0u; i < lid; i++) {
        workgroupBarrier();
    }
    workgroupBarrier();
}
