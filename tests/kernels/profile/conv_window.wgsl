// divlab-profile: --dispatch 4
// A 1-D convolution in the pattern of ML libraries' kernels: each invocation copies a window of
// its input into a local vector and multiplies it with taps staged in workgroup memory. With
// the default fills (every integer field of `shape` holds the dispatch's invocations) the tap
// index `c * shape.taps` runs far past `staged`, the window past `win`, and `base` underflows:
// all defined by WGSL. Under `--backend gl` the workgroup reads crashed llvmpipe (SIGSEGV)
// until divlab clamped indices there (src/shaders/bounds.rs).
struct Shape { channels: u32, stride: u32, taps: u32, pad: u32 }
@group(0) @binding(0) var<uniform> shape: Shape;
@group(0) @binding(1) var<storage, read> signal: array<f32>;
@group(0) @binding(2) var<storage, read> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> result: array<f32>;
var<workgroup> staged: array<f32, 1024>;

fn window_sum(at: u32, first: u32, last: u32) -> f32 {
    var win = vec3<f32>(0.0);
    var acc = vec3<f32>(0.0);
    for (var c = 0u; c < shape.channels; c++) {
        let base = at + c * shape.stride - shape.pad;
        for (var k = first; k <= last; k++) {
            win[k] = signal[base + k];
        }
        let t = c * shape.taps;
        acc = fma(win, vec3(staged[t], staged[t + 1u], staged[t + 2u]), acc);
    }
    return acc.x + acc.y + acc.z;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    for (var i = lid; i < 1024u; i += 64u) {
        staged[i] = weights[i % arrayLength(&weights)];
    }
    workgroupBarrier();
    result[gid.x] = window_sum(gid.x, gid.x % 2u, gid.x % 7u);
}
