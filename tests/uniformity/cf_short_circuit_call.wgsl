// The right operand of && runs in control flow that depends on the left operand.
fn ready() -> bool {
    workgroupBarrier();
    return true;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let ok = lid < 32u && ready();
}
