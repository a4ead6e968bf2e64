// divlab-profile: --dispatch 64
// hello-compute style: one invocation per workgroup, each counting the Collatz steps of its own
// number, giving up with a sentinel when 3n+1 would overflow. Each invocation holds a whole
// subgroup alone.
@group(0) @binding(0) var<storage, read_write> numbers: array<u32>;

fn collatz_steps(start: u32) -> u32 {
    var n = start;
    var steps = 0u;
    loop {
        if (n <= 1u) {
            break;
        }
        if (n % 2u == 0u) {
            n = n / 2u;
        } else {
            if (n >= 1431655765u) {
                return 0xffffffffu;
            }
            n = 3u * n + 1u;
        }
        steps = steps + 1u;
    }
    return steps;
}

@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    numbers[gid.x] = collatz_steps(numbers[gid.x] % 100000u);
}
