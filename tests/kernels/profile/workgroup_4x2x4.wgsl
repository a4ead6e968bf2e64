// divlab-profile: --dispatch 2
// A 4×2×4 workgroup, the shape of Dawn's clustered lights: 32 invocations, which could fill
// subgroups of up to 32 lanes, but lavapipe fills a subgroup from one row along x (4 lanes).
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(4, 2, 4)
fn main(@builtin(local_invocation_index) i: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    out[wg.x * 32u + i] = i * 2u; // store
}
