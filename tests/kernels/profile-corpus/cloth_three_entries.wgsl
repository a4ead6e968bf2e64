// divlab-profile: --entry clear --dispatch 2 --len forces=128
// divlab-profile: --entry springs --dispatch 2 --len points=128 --len forces=128
// divlab-profile: --entry integrate --dispatch 2 --len points=128 --len forces=128
// A mass-spring step in three passes of one module, each its own entry point: clear the forces,
// accumulate spring forces from neighbours, integrate. Each uses a different subset of bindings.
struct Point {
    pos: vec2<f32>,
    prev: vec2<f32>,
}

struct Cloth {
    width: u32,
    rest: f32,
    k: f32,
    dt: f32,
}

@group(0) @binding(0) var<storage, read_write> points: array<Point>;
@group(0) @binding(1) var<storage, read_write> forces: array<vec2<f32>>;
@group(0) @binding(2) var<uniform> cloth: Cloth;

@compute @workgroup_size(64)
fn clear(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&forces)) {
        forces[gid.x] = vec2<f32>(0.0);
    }
}

@compute @workgroup_size(64)
fn springs(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&points);
    let i = gid.x;
    if (i >= n) {
        return;
    }
    let w = max(cloth.width, 1u);
    var f = vec2<f32>(0.0);
    // Right and down neighbours, where they exist.
    if ((i % w) + 1u < w && i + 1u < n) {
        let d = points[i + 1u].pos - points[i].pos;
        f += cloth.k * (length(d) - cloth.rest) * normalize(d + vec2<f32>(1e-6));
    }
    if (i + w < n) {
        let d = points[i + w].pos - points[i].pos;
        f += cloth.k * (length(d) - cloth.rest) * normalize(d + vec2<f32>(1e-6));
    }
    forces[i % arrayLength(&forces)] += f;
}

@compute @workgroup_size(64)
fn integrate(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&points) || i >= arrayLength(&forces)) {
        return;
    }
    var p = points[i];
    // The top row is pinned.
    if (i < cloth.width) {
        return;
    }
    let next = 2.0 * p.pos - p.prev + forces[i] * cloth.dt * cloth.dt;
    p.prev = p.pos;
    p.pos = next;
    points[i] = p;
}
