// divlab-profile: --entry blur_h --dispatch 1,64 --buffer weights=values:0.4,0.2,0.1,0.05,0.025
// divlab-profile: --entry blur_v --dispatch 64,1 --buffer weights=values:0.4,0.2,0.1,0.05,0.025
// A Gaussian blur in two entry points (horizontal, vertical) with the kernel radius as an
// override with a default and the weights in a storage buffer of a second bind group. The
// horizontal pass uses 256-wide rows, the vertical pass 256-tall columns.
override R: i32 = 4;

@group(0) @binding(0) var input_tex: texture_2d<f32>;
@group(0) @binding(1) var output_tex: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(0) var<storage, read> weights: array<f32>;

fn tap(k: i32) -> f32 {
    let i = u32(abs(k));
    if (i >= arrayLength(&weights)) {
        return 0.0;
    }
    return weights[i];
}

@compute @workgroup_size(256, 1, 1)
fn blur_h(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = vec2<i32>(textureDimensions(input_tex));
    let p = vec2<i32>(gid.xy);
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }
    var acc = vec4<f32>(0.0);
    for (var k = -R; k <= R; k++) {
        let q = vec2<i32>(clamp(p.x + k, 0, size.x - 1), p.y);
        acc += tap(k) * textureLoad(input_tex, q, 0);
    }
    textureStore(output_tex, p, acc);
}

@compute @workgroup_size(1, 256, 1)
fn blur_v(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = vec2<i32>(textureDimensions(input_tex));
    let p = vec2<i32>(gid.xy);
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }
    var acc = vec4<f32>(0.0);
    for (var k = -R; k <= R; k++) {
        let q = vec2<i32>(p.x, clamp(p.y + k, 0, size.y - 1));
        acc += tap(k) * textureLoad(input_tex, q, 0);
    }
    textureStore(output_tex, p, acc);
}
