// A pointer parameter that reaches workgroupUniformLoad gets ParameterRequiredToBeUniform.error.
var<workgroup> wg: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
fn load(p: ptr<workgroup, u32>) -> u32 {
    return workgroupUniformLoad(p);
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    buf[0] = load(&wg[lid]);
}
