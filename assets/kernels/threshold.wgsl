// An image threshold, in the pattern of image kernels everywhere: each invocation reads its
// pixel from a texture and takes one of two paths by its value, writing a storage texture. On a
// gradient (red rising left to right, green top to bottom) the pixels with more red than green
// lie below the diagonal, so only the subgroups that the diagonal cuts diverge.
//
//   divlab profile assets/kernels/threshold.wgsl --texture src=gradient --dispatch 8,8 \
//       --save dst=threshold.png
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(src);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let c = textureLoad(src, gid.xy, 0);
    var colour = vec4<f32>(0.1, 0.1, 0.3, 1.0);
    if (c.r > c.g) {
        // More red than green: the warm side, a little more work per pixel.
        let l = dot(c.rgb, vec3<f32>(0.299, 0.587, 0.114));
        colour = vec4<f32>(0.4 + 0.6 * c.r, 0.3 + l, 0.1, 1.0);
    }
    textureStore(dst, gid.xy, colour);
}
