// A loop whose body always breaks runs once: no back edge, uniform after.
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    loop {
        workgroupBarrier();
        out[lid] = 1u;
        break;
    }
    workgroupBarrier();
}
