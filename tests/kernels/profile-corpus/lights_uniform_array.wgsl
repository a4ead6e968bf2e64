// divlab-profile: --dispatch 2,2
// Clustered shading's inner loop in compute: each pixel walks the lights of a uniform block,
// `count` of them (a field beside the array), and skips those out of range. With a random count
// the loop runs past the array's end, clamped by the index.
struct Light {
    pos_radius: vec4<f32>,
    colour: vec4<f32>,
}

struct Lights {
    count: u32,
    ambient: f32,
    items: array<Light, 16>,
}

@group(0) @binding(0) var<uniform> lights: Lights;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(2) var out_colour: texture_storage_2d<rgba16float, write>;

@compute @workgroup_size(8, 8)
fn shade(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(out_colour);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let p = positions[(gid.y * size.x + gid.x) % arrayLength(&positions)].xyz;
    var c = vec3<f32>(lights.ambient);
    for (var i = 0u; i < lights.count; i++) {
        let l = lights.items[min(i, 15u)];
        let d = l.pos_radius.xyz - p;
        let dist2 = dot(d, d);
        if (dist2 > l.pos_radius.w * l.pos_radius.w) {
            continue;
        }
        c += l.colour.rgb / (1.0 + dist2);
    }
    textureStore(out_colour, gid.xy, vec4<f32>(c, 1.0));
}
