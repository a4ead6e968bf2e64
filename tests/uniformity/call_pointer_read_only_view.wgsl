// A read through a read-only storage pointer parameter is as uniform as the memory view the caller passed.
@group(0) @binding(0) var<storage, read> ro: array<u32, 64>;
fn peek(p: ptr<storage, u32, read>) -> u32 {
    return *p;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    if peek(&ro[wid.x % 64u]) > 0u {
        workgroupBarrier();
    }
    if peek(&ro[lid]) > 0u {
        workgroupBarrier();
    }
}
