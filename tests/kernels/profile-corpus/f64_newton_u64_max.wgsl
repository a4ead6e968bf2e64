// divlab-profile: --dispatch 4 --len values=256 --len roots=256
// Scientific code in double precision, as solvers ported from CPU code write it: each lane
// refines the square root of its own value by Newton's method until the step falls below a
// tolerance (so lanes leave the loop at different trips), and the largest value seen is kept
// with a 64-bit atomic max on its bits (`u64` keys and counters). Needs wgpu's SHADER_F64,
// SHADER_INT64 and SHADER_INT64_ATOMIC_MIN_MAX (no `enable`: wgpu turns them on with the
// device's features).

@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read_write> roots: array<f32>;
@group(0) @binding(2) var<storage, read_write> largest: atomic<u64>;

const MAX_STEPS: u32 = 64u;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&values)) {
        return;
    }
    let a = f64(abs(values[i])) * 1000.0lf + 1.0lf;
    var x = a;
    for (var step = 0u; step < MAX_STEPS; step++) {
        let next = 0.5lf * (x + a / x);
        if (abs(next - x) < 1e-12lf * next) {
            x = next;
            break;
        }
        x = next;
    }
    roots[i] = f32(x);
    // Non-negative doubles order as their bits do.
    atomicMax(&largest, bitcast<u64>(a));
}
