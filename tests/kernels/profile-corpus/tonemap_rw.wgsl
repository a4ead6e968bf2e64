// divlab-profile: --dispatch 2,2 --texture luminance=gradient
// In-place tone mapping on a read_write r32float storage texture, with the curve and exposure as
// overrides with defaults; bright pixels take the filmic branch, dark ones a linear one.
override exposure: f32 = 1.5;
override use_filmic: bool = true;
override threshold: f32 = 0.25;

@group(0) @binding(0) var luminance: texture_storage_2d<r32float, read_write>;

fn filmic(x: f32) -> f32 {
    let a = 2.51;
    let b = 0.03;
    let c = 2.43;
    let d = 0.59;
    let e = 0.14;
    return clamp((x * (a * x + b)) / (x * (c * x + d) + e), 0.0, 1.0);
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(luminance);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let l = textureLoad(luminance, gid.xy).r * exposure;
    var mapped = l;
    if (use_filmic && l > threshold) {
        mapped = filmic(l);
    } else {
        mapped = clamp(l, 0.0, 1.0);
    }
    textureStore(luminance, gid.xy, vec4<f32>(mapped, 0.0, 0.0, 1.0));
}
