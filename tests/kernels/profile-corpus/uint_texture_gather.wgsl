// divlab-profile: --dispatch 2,2
// Label propagation on an integer image (texture_2d<u32>, textureLoad) and a gather of a float
// texture's red channel with a sampler; each pixel keeps the smallest label among equals.
@group(0) @binding(0) var labels: texture_2d<u32>;
@group(0) @binding(1) var heights: texture_2d<f32>;
@group(0) @binding(2) var smp: sampler;
@group(0) @binding(3) var next_labels: texture_storage_2d<r32uint, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = vec2<i32>(textureDimensions(labels));
    let p = vec2<i32>(gid.xy);
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }
    let uv = (vec2<f32>(p) + 0.5) / vec2<f32>(size);
    let h = textureGather(0, heights, smp, uv);
    var best = textureLoad(labels, p, 0).x;
    let offsets = array<vec2<i32>, 4>(vec2<i32>(1, 0), vec2<i32>(-1, 0), vec2<i32>(0, 1), vec2<i32>(0, -1));
    for (var i = 0; i < 4; i++) {
        let q = p + offsets[i];
        if (any(q < vec2<i32>(0)) || any(q >= size)) {
            continue;
        }
        if (abs(h[i] - h[(i + 1) % 4]) < 0.25) {
            best = min(best, textureLoad(labels, q, 0).x);
        }
    }
    textureStore(next_labels, p, vec4<u32>(best, 0u, 0u, 0u));
}
