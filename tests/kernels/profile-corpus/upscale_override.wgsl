// divlab-profile: --dispatch 2,2
// Bloom-style upscale and blend: the workgroup size is an override with a default, both inputs
// are sampled at the output pixel's centre, and pixels past the output's edge return at once.
@group(0) @binding(0) var low_res: texture_2d<f32>;
@group(0) @binding(1) var current: texture_2d<f32>;
@group(0) @binding(2) var out_tex: texture_storage_2d<rgba16float, write>;
@group(0) @binding(3) var linear_smp: sampler;

override wg_side: u32 = 8u;
override blend: f32 = 0.8;

@compute @workgroup_size(wg_side, wg_side)
fn upscale(@builtin(global_invocation_id) gid: vec3<u32>) {
    let out_size = textureDimensions(out_tex);
    if (gid.x >= out_size.x || gid.y >= out_size.y) {
        return;
    }
    let uv = (vec2<f32>(gid.xy) + vec2<f32>(0.5)) / vec2<f32>(out_size);
    let blurred = textureSampleLevel(low_res, linear_smp, uv, 0.0);
    let here = textureSampleLevel(current, linear_smp, uv, 0.0);
    var colour = blurred * blend + here;
    if (max(colour.r, max(colour.g, colour.b)) > 1.0) {
        colour = colour / max(colour.r, max(colour.g, colour.b));
    }
    textureStore(out_tex, gid.xy, colour);
}
