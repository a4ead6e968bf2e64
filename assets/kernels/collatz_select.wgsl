// collatz.wgsl with the step made branch-free: `select` computes both candidates and keeps one,
// so the lanes of a subgroup no longer split on the parity of n inside the loop.
//
// divlab profile assets/kernels/collatz_select.wgsl --dispatch 1024

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
        n = select(3u * n + 1u, n / 2u, (n & 1u) == 0u);
        count += 1u;
    }
    steps[i] = count;
}
