// divlab-profile: --dispatch 2,2
// Sphere tracing a small scene of signed distance functions into a storage texture: rays that
// hit early stop early, rays that miss run all MAX_STEPS, so neighbouring lanes diverge at edges.
const MAX_STEPS: u32 = 64u;
const MAX_DIST: f32 = 20.0;

@group(0) @binding(0) var out_image: texture_storage_2d<rgba8unorm, write>;

fn scene(p: vec3<f32>) -> f32 {
    let sphere = length(p - vec3<f32>(0.0, 0.0, 4.0)) - 1.0;
    let ground = p.y + 1.0;
    let q = abs(p - vec3<f32>(1.5, -0.5, 5.0)) - vec3<f32>(0.5);
    let cube = length(max(q, vec3<f32>(0.0))) + min(max(q.x, max(q.y, q.z)), 0.0);
    return min(sphere, min(ground, cube));
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(out_image);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let uv = (vec2<f32>(gid.xy) + 0.5) / vec2<f32>(size) * 2.0 - 1.0;
    let dir = normalize(vec3<f32>(uv.x, -uv.y, 1.5));
    var t = 0.0;
    var hit = false;
    for (var i = 0u; i < MAX_STEPS; i++) {
        let d = scene(dir * t);
        if (d < 0.001) {
            hit = true;
            break;
        }
        t += d;
        if (t > MAX_DIST) {
            break;
        }
    }
    var colour = vec4<f32>(0.2, 0.3, 0.5, 1.0);
    if (hit) {
        let shade = clamp(1.0 - t / MAX_DIST, 0.0, 1.0);
        colour = vec4<f32>(shade, shade, shade, 1.0);
    }
    textureStore(out_image, gid.xy, colour);
}
