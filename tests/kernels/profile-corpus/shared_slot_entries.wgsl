// divlab-profile: --entry measure --dispatch 2,2 --texture image=gradient --size image=16x16
// divlab-profile: --entry paint --dispatch 2,2 --size canvas=16x16
// Two passes of one module that give one binding slot to two variables, as samples do when each
// pass binds its own view there: `measure` reads a sampled texture at @binding(2), `paint`
// writes a storage texture at the same slot. Both keep `_ = &params;` so that their layouts
// agree on the uniform whether they read it or not.
struct Params {
    width: u32,
    threshold: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> levels: array<f32>;
@group(0) @binding(2) var image: texture_2d<f32>;
@group(0) @binding(2) var canvas: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 8)
fn measure(@builtin(global_invocation_id) id: vec3u) {
    _ = &params;
    let size = textureDimensions(image);
    if (id.x >= size.x || id.y >= size.y) {
        return;
    }
    let texel = textureLoad(image, vec2i(id.xy), 0);
    let i = id.y * size.x + id.x;
    if (i < arrayLength(&levels)) {
        levels[i] = dot(texel.rgb, vec3f(0.25, 0.5, 0.25));
    }
}

@compute @workgroup_size(8, 8)
fn paint(@builtin(global_invocation_id) id: vec3u) {
    let size = textureDimensions(canvas);
    if (any(id.xy >= size)) {
        return;
    }
    let i = id.y * params.width + id.x;
    var level = 0.0;
    if (i < arrayLength(&levels)) {
        level = levels[i];
    }
    let lit = select(vec4f(0.1, 0.1, 0.3, 1.0), vec4f(1.0, 0.9, 0.6, 1.0), level > params.threshold);
    textureStore(canvas, vec2i(id.xy), lit);
}
