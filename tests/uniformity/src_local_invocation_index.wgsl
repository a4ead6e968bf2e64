// Local_invocation_index is a non-uniform built-in value, so a barrier under a condition on it is an error.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let first = lid == 0u;
    if first {
        workgroupBarrier();
    }
    workgroupBarrier();
}
