// divlab-profile: --dispatch 2,2 --texture src=checker:4 --sampler smp=linear,clamp
// An image filter in the usual pattern: sample the input at each pixel's centre, branch on its
// brightness, write the result to a storage texture.
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var dst: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(src);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let uv = (vec2<f32>(gid.xy) + 0.5) / vec2<f32>(size);
    let c = textureSampleLevel(src, smp, uv, 0.0);
    var out = c;
    if (c.r > 0.5) {
        out = vec4<f32>(c.r * 0.4, 0.2, 0.0, 1.0); // a bright pixel
    }
    textureStore(dst, gid.xy, out);
}
