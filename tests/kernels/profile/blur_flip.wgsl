// divlab-profile: --dispatch 2,2
// One pass of a separable blur in the pattern of the WebGPU samples' image blur: a uniform holds
// the filter size and a 0/1 `flip` flag (the second pass of a pair sets it and transposes), the
// input is a sampled texture, the output a storage texture. By default the flag is taken for
// what it is (0: the untransposed path), so every texel of the output is written.
struct Params {
    filter_size: u32,
    flip: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var src: texture_2d<f32>;
@group(0) @binding(2) var smp: sampler;
@group(0) @binding(3) var dst: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let dims = vec2<i32>(textureDimensions(src));
    var at = vec2<i32>(gid.xy);
    var step = vec2<i32>(1, 0);
    if (params.flip != 0u) {
        at = at.yx; // transpose
        step = step.yx;
    }
    let half = i32(min(params.filter_size, 15u) / 2u);
    var acc = vec3<f32>(0.0);
    for (var k = -half; k <= half; k++) {
        let p = clamp(at + k * step, vec2<i32>(0), dims - 1);
        acc += textureSampleLevel(src, smp, (vec2<f32>(p) + 0.5) / vec2<f32>(dims), 0.0).rgb;
    }
    textureStore(dst, at, vec4<f32>(acc / f32(2 * half + 1), 1.0)); // store
}
