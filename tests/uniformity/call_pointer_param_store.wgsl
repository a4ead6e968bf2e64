// A function storing its value argument through a pointer: the pointee is as uniform as that argument.
fn store_to(p: ptr<function, u32>, v: u32) {
    *p = v;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 0u;
    var y = 0u;
    store_to(&x, lid);
    store_to(&y, 3u);
    let a = x;
    let b = y;
    if b == 3u {
        workgroupBarrier();
    }
    if a == 3u {
        workgroupBarrier();
    }
}
