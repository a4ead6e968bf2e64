// Control flow is uniform again after a loop with behavior {Next}, whatever its breaks.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    for (var i = 0u; i < 8u; i++) {
        if i == lid { break; }
    }
    workgroupBarrier();
}
