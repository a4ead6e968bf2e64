// divlab-profile: --dispatch 2,2,2
// Semi-Lagrangian advection of a 3-D smoke density: trace each cell back along its velocity,
// sample the density there with a linear sampler, write a 3-D storage texture. 4x4x4 workgroups.
struct Params {
    dt: f32,
    dissipation: f32,
}

@group(0) @binding(0) var velocity: texture_3d<f32>;
@group(0) @binding(1) var density_in: texture_3d<f32>;
@group(0) @binding(2) var smp: sampler;
@group(0) @binding(3) var density_out: texture_storage_3d<rgba16float, write>;
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(4, 4, 4)
fn advect(@builtin(global_invocation_id) id: vec3<u32>) {
    let dims = textureDimensions(density_out);
    if (any(id >= dims)) {
        return;
    }
    // A one-cell halo stays as it is.
    if (any(id == vec3<u32>(0u)) || any(id + 1u >= dims)) {
        textureStore(density_out, id, vec4<f32>(0.0));
        return;
    }
    let v = textureLoad(velocity, id, 0).xyz;
    let from_pos = (vec3<f32>(id) + 0.5 - clamp(params.dt, 0.0, 1.0) * v) / vec3<f32>(dims);
    let d = textureSampleLevel(density_in, smp, from_pos, 0.0);
    textureStore(density_out, id, d * clamp(params.dissipation, 0.0, 1.0));
}
