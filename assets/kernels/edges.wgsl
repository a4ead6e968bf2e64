// Edge detection, in the pattern of image filters everywhere: each invocation reads its pixel's
// 3×3 neighbourhood from a texture, takes the Sobel gradient of its brightness, and writes an
// edge colour (by direction) or black to a storage texture. Only pixels on an edge take the
// branch, so a subgroup pays for the edge pixels among its lanes: on a picture with few edges,
// most lanes of a subgroup that meets one sit idle through it.
//
//   divlab profile assets/kernels/edges.wgsl --texture src=file:assets/playground.png \
//       --dispatch 160,100 --save dst=edges.png
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;

fn luma(p: vec2<i32>) -> f32 {
    let size = vec2<i32>(textureDimensions(src));
    let c = textureLoad(src, clamp(p, vec2<i32>(0), size - 1), 0);
    return dot(c.rgb, vec3<f32>(0.299, 0.587, 0.114));
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(src);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let p = vec2<i32>(gid.xy);
    let gx = luma(p + vec2<i32>(1, -1)) + 2.0 * luma(p + vec2<i32>(1, 0)) + luma(p + vec2<i32>(1, 1))
        - luma(p + vec2<i32>(-1, -1)) - 2.0 * luma(p + vec2<i32>(-1, 0)) - luma(p + vec2<i32>(-1, 1));
    let gy = luma(p + vec2<i32>(-1, 1)) + 2.0 * luma(p + vec2<i32>(0, 1)) + luma(p + vec2<i32>(1, 1))
        - luma(p + vec2<i32>(-1, -1)) - 2.0 * luma(p + vec2<i32>(0, -1)) - luma(p + vec2<i32>(1, -1));
    var colour = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    if (length(vec2<f32>(gx, gy)) > 0.5) {
        let angle = atan2(gy, gx);
        colour = vec4<f32>(0.5 + 0.5 * cos(angle), 0.5 + 0.5 * sin(angle), 1.0, 1.0);
    }
    textureStore(dst, gid.xy, colour);
}
