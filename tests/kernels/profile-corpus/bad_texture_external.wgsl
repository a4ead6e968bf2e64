// divlab-profile: --dispatch 2,2
// divlab-profile-expect: exit 2
// Video frames arrive as texture_external, which only a browser or host can bind; divlab should
// name the binding and its line.
@group(0) @binding(0) var frame: texture_external;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var dst: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(dst);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let uv = (vec2<f32>(gid.xy) + 0.5) / vec2<f32>(size);
    textureStore(dst, gid.xy, textureSampleBaseClampToEdge(frame, smp, uv));
}
