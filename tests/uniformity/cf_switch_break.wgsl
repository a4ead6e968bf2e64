// Break leaves a switch like falling off a case: behavior {Next}, uniform after.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    switch lid {
        case 0u: {
            if lid == 0u { break; }
        }
        default: { }
    }
    workgroupBarrier();
}
