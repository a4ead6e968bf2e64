// TextureDimensions of a storage texture is uniform.
@group(0) @binding(0) var img: texture_storage_2d<r32float, read_write>;
@compute @workgroup_size(64)
fn main() {
    let size = textureDimensions(img);
    if size.x > 8u {
        textureBarrier();
    }
}
