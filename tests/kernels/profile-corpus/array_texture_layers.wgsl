// divlab-profile: --dispatch 2,2,3 --size src=16x16x3
// Per-layer processing of a texture array: a 2-D workgroup per tile, z selects the layer; reads
// a sampled 2-D array, writes a 2-D array storage texture, with a different curve per layer.
@group(0) @binding(0) var src: texture_2d_array<f32>;
@group(0) @binding(1) var dst: texture_storage_2d_array<rgba8unorm, write>;

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(dst);
    let layers = textureNumLayers(dst);
    if (gid.x >= size.x || gid.y >= size.y || gid.z >= layers) {
        return;
    }
    let c = textureLoad(src, vec2<i32>(gid.xy), i32(gid.z), 0);
    var out = c;
    switch gid.z {
        case 0u: {
            out = vec4<f32>(vec3<f32>(dot(c.rgb, vec3<f32>(0.299, 0.587, 0.114))), 1.0);
        }
        case 1u, 2u: {
            out = vec4<f32>(pow(c.rgb, vec3<f32>(2.2)), c.a);
        }
        default: {}
    }
    textureStore(dst, vec2<i32>(gid.xy), i32(gid.z), out);
}
