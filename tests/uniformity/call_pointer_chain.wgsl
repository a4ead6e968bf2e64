// Pointer-parameter tags compose: a store two calls deep reaches the caller's variable.
fn inner_store(p: ptr<function, u32>, v: u32) {
    *p = v;
}
fn outer_store(p: ptr<function, u32>, v: u32) {
    inner_store(p, v);
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var a = 0u;
    var b = 0u;
    outer_store(&a, lid);
    outer_store(&b, 7u);
    let ra = a;
    let rb = b;
}
