// A variable made non-uniform in a loop is uniform again after a full assignment below the loop.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 0u;
    for (var i = 0u; i < 4u; i++) {
        x = x + lid;
    }
    x = 5u;
    if x == 5u {
        workgroupBarrier();
    }
}
