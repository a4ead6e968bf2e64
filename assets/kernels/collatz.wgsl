// The Collatz stopping time of every element: how many steps n -> n/2 (even) or 3n+1 (odd)
// take to reach 1. Each lane loops as long as its own number needs, so the lanes of a subgroup
// leave the loop at different trips: a textbook divergent loop, with a divergent `if` inside.
//
// divlab profile assets/kernels/collatz.wgsl --dispatch 1024

@group(0) @binding(0) var<storage, read> seeds: array<u32>;
@group(0) @binding(1) var<storage, read_write> steps: array<u32>;

const MAX_STEPS: u32 = 1000u;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&seeds)) {
        return;
    }
    var n = seeds[i] % 10000u + 1u;
    var count = 0u;
    while (n != 1u && count < MAX_STEPS) {
        if ((n & 1u) == 0u) {
            n = n / 2u;
        } else {
            n = 3u * n + 1u;
        }
        count += 1u;
    }
    steps[i] = count;
}
