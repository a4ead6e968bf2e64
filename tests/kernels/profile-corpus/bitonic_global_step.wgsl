// divlab-profile: --dispatch 4 --buffer step=values:8,4
// One global step of a bitonic sort, dispatched once per (k, j) by the host: the pair to compare
// comes from a uniform, so a lane works only when its partner lies above it.
struct Step {
    k: u32,
    j: u32,
}

@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@group(0) @binding(1) var<uniform> step: Step;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let ixj = i ^ step.j;
    if (ixj <= i || ixj >= arrayLength(&data)) {
        return;
    }
    let a = data[i];
    let b = data[ixj];
    if ((i & step.k) == 0u) {
        if (a > b) {
            data[i] = b;
            data[ixj] = a;
        }
    } else if (a < b) {
        data[i] = b;
        data[ixj] = a;
    }
}
