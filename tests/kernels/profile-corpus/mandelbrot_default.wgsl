// divlab-profile: --dispatch 2,2
// mandelbrot.wgsl as a newcomer runs it first, with no fills: the iteration limit is a random
// uniform field.
struct View {
    centre: vec2<f32>,
    scale: f32,
    max_iter: u32,
}

@group(0) @binding(0) var<uniform> view: View;
@group(0) @binding(1) var<storage, read_write> iterations: array<u32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let size = groups.xy * 8u;
    let uv = (vec2<f32>(gid.xy) + 0.5) / vec2<f32>(size) - 0.5;
    let c = view.centre + uv * 3.0;
    var z = vec2<f32>(0.0);
    var i = 0u;
    for (; i < view.max_iter; i++) {
        if (dot(z, z) > 4.0) {
            break;
        }
        z = vec2<f32>(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
    }
    let idx = gid.y * size.x + gid.x;
    if (idx < arrayLength(&iterations)) {
        iterations[idx] = i;
    }
}
