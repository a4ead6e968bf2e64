// divlab-profile: --dispatch 16 --buffer hits=random:3
// A shading pass in the pattern of path tracers' material dispatch: a `switch` on each hit's
// material calls a BRDF function with a loop of its own, so the sides' work is in the functions
// they call. Divergent wherever a subgroup's hits mix materials.
struct Hit { t: f32, material: u32, normal: vec3f }
@group(0) @binding(0) var<storage, read> hits: array<Hit>;
@group(0) @binding(1) var<storage, read_write> radiance: array<vec4f>;

fn lambert(n: vec3f) -> vec3f {
    var c = vec3f(0.0);
    for (var i = 0u; i < 16u; i++) {
        c += max(dot(n, normalize(vec3f(f32(i), 1.0, 2.0))), 0.0) * vec3f(0.8, 0.7, 0.6);
    }
    return c / 16.0;
}

fn glossy(n: vec3f, t: f32) -> vec3f {
    var c = vec3f(0.0);
    for (var i = 0u; i < 32u; i++) {
        let h = normalize(vec3f(sin(f32(i)), cos(f32(i)), t));
        c += pow(max(dot(n, h), 0.0), 16.0) * vec3f(1.0);
    }
    return c / 32.0;
}

@compute @workgroup_size(64)
fn shade(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    if (i >= arrayLength(&hits)) { return; }
    let hit = hits[i];
    var color = vec3f(0.0);
    switch (hit.material % 4u) {
        case 0u: { color = vec3f(0.1, 0.2, 0.3); }
        case 1u: { color = lambert(hit.normal); }
        case 2u: { color = glossy(hit.normal, hit.t); }
        default: { color = 0.5 * (lambert(hit.normal) + glossy(hit.normal, hit.t)); }
    }
    radiance[i] = vec4f(color, 1.0);
}
