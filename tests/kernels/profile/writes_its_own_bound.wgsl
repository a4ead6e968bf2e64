// divlab-profile: --dispatch 4 --buffer data=zeros
// A kernel that reads its loop's bound from the buffer it writes: filled with zeros, no lane
// loops, and each leaves 20000 behind. The timed runs must start from the zeros too (divlab
// puts back what the kernel wrote before each), or they would time 20000 trips a lane: a
// kernel nobody profiled, and on an input that never ends (Collatz over its own seeds) a hang.
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    var x = f32(i);
    for (var k = 0u; k < data[i]; k++) {
        x = fma(x, 0.999, 1.0);
    }
    data[i] = 20000u + u32(x) % 2u;
}
