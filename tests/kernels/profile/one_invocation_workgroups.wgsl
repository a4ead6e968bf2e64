// divlab-profile: --dispatch 8
// Collatz steps of 1..8, one invocation per workgroup (as wgpu's hello-compute example has
// it): each workgroup holds a subgroup alone, with one lane of it active.

@group(0) @binding(0) var<storage, read_write> steps: array<u32>;

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var n = gid.x + 1u;
    var count = 0u;
    while (n != 1u && count < 1000u) { // collatz: loop
        if (n % 2u == 0u) {
            n = n / 2u;
        } else {
            n = 3u * n + 1u;
        }
        count += 1u; // collatz: step
    }
    steps[gid.x] = count;
}
