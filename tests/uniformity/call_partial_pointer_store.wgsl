// A pointer to one element passed to a function that stores through it is a partial assignment: a[0] keeps lid.
fn store(p: ptr<function, u32>, x: u32) {
    *p = x;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var a = array<u32, 2>(lid, 0u);
    store(&a[1], 7u);
    if a[0] > 0u {
        workgroupBarrier();
    }
}
