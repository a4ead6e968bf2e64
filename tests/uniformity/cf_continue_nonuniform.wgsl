// A non-uniform continue makes the rest of the body non-uniform.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    for (var i = 0u; i < 4u; i++) {
        if lid == i {
            continue;
        }
        workgroupBarrier();
    }
}
