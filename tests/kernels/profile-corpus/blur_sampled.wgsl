// divlab-profile: --dispatch 2,2
// A separable box blur in the image-filter pattern: sample a texture with a linear sampler along
// one axis, `radius` taps each side (from a uniform), and write a storage texture. The radius is
// an input: with a random fill the loop runs until the cap.
struct BlurParams {
    radius: i32,
    horizontal: u32,
}

@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var dst: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(0) var<uniform> params: BlurParams;

@compute @workgroup_size(8, 8)
fn blur(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(dst);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let texel = 1.0 / vec2<f32>(size);
    let centre = (vec2<f32>(gid.xy) + 0.5) * texel;
    var step = vec2<f32>(0.0, texel.y);
    if (params.horizontal != 0u) {
        step = vec2<f32>(texel.x, 0.0);
    }
    var acc = vec4<f32>(0.0);
    var taps = 0.0;
    for (var i = -params.radius; i <= params.radius; i++) {
        acc += textureSampleLevel(src, smp, centre + f32(i) * step, 0.0);
        taps += 1.0;
    }
    textureStore(dst, gid.xy, acc / max(taps, 1.0));
}
