// TextureLoad from a sampled texture has no restriction: uniform coordinates give a uniform value.
@group(0) @binding(0) var tex: texture_2d<f32>;
@compute @workgroup_size(64)
fn main() {
    let texel = textureLoad(tex, vec2<i32>(0, 0), 0);
    if texel.x > 0.5 {
        workgroupBarrier();
    }
}
