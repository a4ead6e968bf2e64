// Control flow is uniform again after an if whose behavior is {Next}, even when it branched non-uniformly.
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid % 2u == 0u {
        out[lid] = 1u;
    } else {
        out[lid] = 2u;
    }
    workgroupBarrier();
}
