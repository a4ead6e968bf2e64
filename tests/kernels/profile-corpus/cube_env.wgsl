// divlab-profile: --dispatch 4,4 --size env=8
// Irradiance-style lookups: each invocation turns its pixel into a direction on one face and
// samples a cube map with a sampler, accumulating a few jittered taps.
@group(0) @binding(0) var env: texture_cube<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var<storage, read_write> radiance: array<vec4<f32>>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let size = groups.xy * 8u;
    let uv = (vec2<f32>(gid.xy) + 0.5) / vec2<f32>(size) * 2.0 - 1.0;
    let dir = normalize(vec3<f32>(uv.x, -uv.y, 1.0));
    var acc = vec4<f32>(0.0);
    for (var t = 0u; t < 4u; t++) {
        let jitter = vec3<f32>(f32(t & 1u), f32(t >> 1u), 0.0) * 0.05;
        acc += textureSampleLevel(env, smp, dir + jitter, 0.0);
    }
    let idx = gid.y * size.x + gid.x;
    if (idx < arrayLength(&radiance)) {
        radiance[idx] = acc * 0.25;
    }
}
