// A function returning a constant has no parameter-return tag: any argument gives a uniform result.
fn four(x: u32) -> u32 {
    _ = x;
    return 4u;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let r = four(lid);
    if r == 4u {
        workgroupBarrier();
    }
}
