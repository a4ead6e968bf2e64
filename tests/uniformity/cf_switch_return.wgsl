// A return in a case of a non-uniform switch leaves non-uniform control flow after the switch.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    switch lid {
        case 0u: { return; }
        default: { }
    }
    workgroupBarrier();
}
