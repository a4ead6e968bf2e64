// A value assigned late in one iteration reaches the top of the next: the loop iterates to a fixed point.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 0u;
    for (var i = 0u; i < 4u; i++) {
        if x == 0u {
            workgroupBarrier();
        }
        x = lid;
    }
}
