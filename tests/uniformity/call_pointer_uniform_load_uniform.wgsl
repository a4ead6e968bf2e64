// A uniform memory view passed to a helper's workgroupUniformLoad is accepted, and its result is uniform.
var<workgroup> wg: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
fn load(p: ptr<workgroup, u32>) -> u32 {
    return workgroupUniformLoad(p);
}
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    let v = load(&wg[wid.x % 64u]);
    if v > 0u {
        workgroupBarrier();
    }
    buf[0] = v;
}
