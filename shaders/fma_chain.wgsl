// A pure-arithmetic kernel: ITERATIONS x 64 fused multiply-adds per invocation, in four
// independent vec4 chains so the issue rate, not latency, bounds it. Used to check the timer.
// Keep in sync with src/shaders/fma_chain.rs (WORKGROUP_SIZE, FLOPS_PER_ITERATION).

const WORKGROUP_SIZE: u32 = 64u;

// Bounded by construction: the only loop runs ITERATIONS times.
override ITERATIONS: u32 = 64u;

@group(0) @binding(0) var<storage, read_write> sink: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let seed = f32(gid.x & 255u) * 1e-3;
    var a = vec4<f32>(seed, seed + 0.1, seed + 0.2, seed + 0.3);
    var b = a + 0.5;
    var c = a + 1.0;
    var d = a + 1.5;
    let m = vec4<f32>(0.999);
    let k = vec4<f32>(0.001);
    for (var i = 0u; i < ITERATIONS; i++) {
        a = fma(a, m, k); b = fma(b, m, k); c = fma(c, m, k); d = fma(d, m, k);
        a = fma(a, m, k); b = fma(b, m, k); c = fma(c, m, k); d = fma(d, m, k);
        a = fma(a, m, k); b = fma(b, m, k); c = fma(c, m, k); d = fma(d, m, k);
        a = fma(a, m, k); b = fma(b, m, k); c = fma(c, m, k); d = fma(d, m, k);
    }
    // One store per invocation keeps the chains alive.
    sink[gid.x] = a + b + c + d;
}
