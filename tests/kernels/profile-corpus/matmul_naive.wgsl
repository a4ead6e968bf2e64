// divlab-profile: --dispatch 2,2
// C = A x B, one output per invocation in a 16x16 workgroup; the inner loop runs over `dim_k`
// from a uniform, so its trip count is whatever the uniform holds.
struct Dims {
    dim_m: u32,
    dim_k: u32,
    dim_n: u32,
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.y;
    let col = gid.x;
    if (row >= dims.dim_m || col >= dims.dim_n) {
        return;
    }
    var sum = 0.0;
    for (var k = 0u; k < dims.dim_k; k++) {
        let ai = row * dims.dim_k + k;
        let bi = k * dims.dim_n + col;
        sum += a[ai % arrayLength(&a)] * b[bi % arrayLength(&b)];
    }
    c[(row * dims.dim_n + col) % arrayLength(&c)] = sum;
}
