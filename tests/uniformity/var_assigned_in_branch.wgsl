// An assignment in non-uniform control flow makes the variable non-uniform after the join.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 0u;
    if lid > 3u {
        x = 1u;
    }
    let y = x;
    if y == 1u {
        workgroupBarrier();
    }
}
