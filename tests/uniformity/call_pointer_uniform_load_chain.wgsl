// A pointer parameter passed on to a helper that calls workgroupUniformLoad: the tag reaches the outer parameter.
var<workgroup> wg: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
fn inner(p: ptr<workgroup, u32>) -> u32 {
    return workgroupUniformLoad(p);
}
fn outer(p: ptr<workgroup, u32>) -> u32 {
    let q = p;
    return inner(q) + 1u;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    buf[0] = outer(&wg[0]);
    buf[1] = outer(&wg[lid]);
}
