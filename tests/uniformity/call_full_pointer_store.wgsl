// A full pointer passed to a function that stores a uniform value through it overwrites the whole variable.
fn store(p: ptr<function, array<u32, 2>>, x: u32) {
    *p = array<u32, 2>(x, x);
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var a = array<u32, 2>(lid, 0u);
    store(&a, 7u);
    if a[0] > 0u {
        workgroupBarrier();
    }
}
