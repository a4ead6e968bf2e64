// divlab-profile: --entry scale --dispatch 2
// Two passes that share one bind group layout, as renderers declare it: the second pass does
// not read `history`, but names it with a phony assignment so that both pipelines take the same
// bind group. naga's WGSL writer drops `_ = &history;`, so divlab puts it back in the
// instrumented kernel (it was "Number of bindings in bind group descriptor (4) does not match").
struct Params { count: u32, gain: f32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(0) @binding(2) var<storage, read_write> output: array<f32>;
@group(0) @binding(3) var<storage, read_write> history: array<f32>;

@compute @workgroup_size(64)
fn accumulate(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < params.count) {
        history[gid.x] += input[gid.x];
        output[gid.x] = history[gid.x];
    }
}

@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) gid: vec3<u32>) {
    _ = &history;
    if (gid.x < params.count) {
        output[gid.x] = input[gid.x] * params.gain;
    }
}
