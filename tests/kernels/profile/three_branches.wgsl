// divlab-profile: --dispatch 2
// Three branches of known divergence, for the kernel-level branch efficiency: one on the lane
// (every subgroup splits), one on the workgroup (never splits), and one inside it on a run of
// 8 consecutive local indices (splits only where a subgroup is wider than 8).
@group(0) @binding(0) var<storage, read_write> cells: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    var value = cells[gid.x];
    if (gid.x % 4u == 0u) { // lane branch
        value = value * 3u + 1u; // lane then
    }
    if (wid.x == 1u) { // workgroup branch
        if (lid % 16u < 8u) { // run branch
            value = value + 7u; // run then
        }
    }
    cells[gid.x] = value;
}
