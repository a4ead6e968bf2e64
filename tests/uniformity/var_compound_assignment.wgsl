// X += e depends on x and on e.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 1u;
    x += lid;
    let y = x;
    if y > 4u {
        workgroupBarrier();
    }
}
