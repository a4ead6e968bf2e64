// Statements after a return are statically unreachable and not analyzed.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        return;
        workgroupBarrier();
    }
    workgroupBarrier();
}
