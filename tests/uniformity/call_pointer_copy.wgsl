// A pointee copied from another pointer parameter's pointee is as uniform as the source.
fn copy(dst: ptr<function, u32>, src: ptr<function, u32>) {
    *dst = *src;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var a = 0u;
    var b = lid;
    var c = 0u;
    var d = 3u;
    copy(&a, &b);
    copy(&c, &d);
    let ra = a;
    let rc = c;
}
