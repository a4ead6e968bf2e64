// divlab-profile: --dispatch 2,2
// A texture read by `textureLoad` with a `u32` mip level, as mip-chain and downsampling passes
// write it. naga's GLSL for it calls `textureSize(sampler2D, uint)`, which Mesa's GL rejected;
// on GL divlab passes the level as `i32(level)` (src/shaders/bounds.rs).
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let level = 0u;
    let size = textureDimensions(src, level);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let texel = textureLoad(src, gid.xy, level);
    if (texel.r > 0.5) {
        out[gid.y * size.x + gid.x] = texel.r;
    } else {
        out[gid.y * size.x + gid.x] = 0.0;
    }
}
