// Global_invocation_id is non-uniform.
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x % 2u == 0u {
        out[gid.x] = 1u;
        workgroupBarrier();
    }
}
