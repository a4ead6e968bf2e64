// divlab-profile: --dispatch 1
// divlab-profile-expect: exit 2
// Bindless materials (without its enable): a binding array of textures indexed per invocation. divlab cannot fill a
// binding array and should say so, naming the binding and its line.
@group(0) @binding(0) var textures: binding_array<texture_2d<f32>, 4>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&out)) {
        out[gid.x] = textureLoad(textures[gid.x % 4u], vec2<i32>(0, 0), 0);
    }
}
