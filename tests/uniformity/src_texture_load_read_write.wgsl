// TextureLoad from a read_write storage texture returns a value that may be non-uniform.
@group(0) @binding(0) var img: texture_storage_2d<r32float, read_write>;
@compute @workgroup_size(64)
fn main() {
    let texel = textureLoad(img, vec2<i32>(0, 0));
    if texel.x > 0.5 {
        textureBarrier();
    }
}
