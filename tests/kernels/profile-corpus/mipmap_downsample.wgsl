// divlab-profile: --dispatch 2,2 --size src=32x32
// Mipmap generation: each invocation averages a 2x2 block of the level above with textureLoad
// and writes the level below; odd edges clamp to the last texel.
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 8)
fn downsample(@builtin(global_invocation_id) gid: vec3<u32>) {
    let out_size = textureDimensions(dst);
    if (gid.x >= out_size.x || gid.y >= out_size.y) {
        return;
    }
    let in_size = vec2<i32>(textureDimensions(src, 0));
    let base = vec2<i32>(gid.xy) * 2;
    var sum = vec4<f32>(0.0);
    for (var j = 0; j < 2; j++) {
        for (var i = 0; i < 2; i++) {
            let p = min(base + vec2<i32>(i, j), in_size - 1);
            sum += textureLoad(src, p, 0);
        }
    }
    textureStore(dst, gid.xy, sum * 0.25);
}
