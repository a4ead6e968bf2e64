// divlab-profile: --dispatch 4
// One invocation per workgroup, as wgpu's Collatz example and mesh generators dispatch: each
// holds a whole subgroup alone.
@group(0) @binding(0) var<storage, read_write> steps: array<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    steps[wid.x] = wid.x * 2u + 1u; // store
}
