// divlab-profile: --dispatch 2,2 --buffer view=values:-0.5,0.0,3.0,0
// The Mandelbrot set into a storage texture: each pixel iterates until it escapes or reaches
// `max_iter` (a uniform field, so a random fill is a loop that does not end soon).
struct View {
    centre_x: f32,
    centre_y: f32,
    scale: f32,
    max_iter: u32,
}

@group(0) @binding(0) var<uniform> view: View;
@group(0) @binding(1) var image: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(image);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let uv = (vec2<f32>(gid.xy) + 0.5) / vec2<f32>(size) - 0.5;
    let c = vec2<f32>(view.centre_x, view.centre_y) + uv * view.scale;
    var z = vec2<f32>(0.0);
    var i = 0u;
    while (i < view.max_iter) {
        z = vec2<f32>(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
        if (dot(z, z) > 4.0) {
            break;
        }
        i++;
    }
    var colour = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    if (i < view.max_iter) {
        let t = f32(i) / f32(max(view.max_iter, 1u));
        colour = vec4<f32>(t, sqrt(t), t * t, 1.0);
    }
    textureStore(image, gid.xy, colour);
}
