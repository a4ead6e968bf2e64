// A callee passing a pointer to part of its pointee on to a store: the caller's variable keeps its old value.
fn store(p: ptr<function, u32>, x: u32) {
    *p = x;
}
fn second(p: ptr<function, array<u32, 2>>) {
    store(&(*p)[1], 7u);
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var a = array<u32, 2>(lid, 0u);
    second(&a);
    if a[0] > 0u {
        workgroupBarrier();
    }
}
