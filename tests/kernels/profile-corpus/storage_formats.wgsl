// divlab-profile: --dispatch 2,2
// A G-buffer resolve that writes several storage formats at once: bgra8unorm (swapchain-like),
// rgba32uint (ids), r32sint read_write (a signed accumulator), rg32float (motion).
@group(0) @binding(0) var colour_out: texture_storage_2d<bgra8unorm, write>;
@group(0) @binding(1) var ids_out: texture_storage_2d<rgba32uint, write>;
@group(0) @binding(2) var accum: texture_storage_2d<r32sint, read_write>;
@group(0) @binding(3) var motion_out: texture_storage_2d<rg32float, write>;
@group(0) @binding(4) var<storage, read> depth: array<f32>;

@compute @workgroup_size(8, 8)
fn resolve(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(colour_out);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let i = (gid.y * size.x + gid.x) % arrayLength(&depth);
    let d = depth[i];
    let a = textureLoad(accum, gid.xy).x;
    if (d > 0.5) {
        textureStore(accum, gid.xy, vec4<i32>(a + 1, 0, 0, 0));
        textureStore(colour_out, gid.xy, vec4<f32>(d, 0.0, 1.0 - d, 1.0));
    } else {
        textureStore(accum, gid.xy, vec4<i32>(a - 1, 0, 0, 0));
        textureStore(colour_out, gid.xy, vec4<f32>(0.0, d, 0.0, 1.0));
    }
    textureStore(ids_out, gid.xy, vec4<u32>(gid.x, gid.y, u32(a & 0xff), 1u));
    textureStore(motion_out, gid.xy, vec4<f32>(f32(gid.x) - d, f32(gid.y) + d, 0.0, 0.0));
}
