// A pointer to one structure member passed to a function that stores through it is a partial assignment.
struct S {
    a: u32,
    b: u32,
}
fn store(p: ptr<function, u32>, x: u32) {
    *p = x;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var s = S(lid, 0u);
    store(&s.b, 7u);
    if s.a > 0u {
        workgroupBarrier();
    }
}
