// The only element of a one-element array is still a partial reference: a store through it keeps the old value.
fn store(p: ptr<function, u32>, x: u32) {
    *p = x;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var one = array<u32, 1>(lid);
    store(&one[0], 7u);
    if one[0] > 0u {
        workgroupBarrier();
    }
}
