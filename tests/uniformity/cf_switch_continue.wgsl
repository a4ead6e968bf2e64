// A non-uniform continue inside a switch in a loop makes the rest of the loop body non-uniform.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    for (var i = 0u; i < 4u; i++) {
        switch lid % 2u {
            case 0u: { continue; }
            default: { }
        }
        workgroupBarrier();
    }
    workgroupBarrier();
}
