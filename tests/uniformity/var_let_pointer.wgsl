// An assignment through a let-bound pointer is an assignment to the variable it points to.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 0u;
    let p = &x;
    *p = lid;
    if x > 0u {
        workgroupBarrier();
    }
}
