// divlab-profile: --dispatch 2 --buffer dims=values:64,64
// A 64x64 tile of A and one of B in workgroup memory (32 KiB together, twice WebGPU's default
// limit of 16 KiB, which native adapters raise), one 16x16 workgroup computing a 64x64 block
// four outputs a side per invocation.
struct Dims {
    n: u32,
    k: u32,
}

const T: u32 = 64u;

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

var<workgroup> ta: array<f32, 4096>;
var<workgroup> tb: array<f32, 4096>;

@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let na = arrayLength(&a);
    let nb = arrayLength(&b);
    for (var i = li; i < T * T; i += 256u) {
        ta[i] = a[i % na];
        tb[i] = b[(i + wid.x) % nb];
    }
    workgroupBarrier();
    var acc = array<f32, 16>();
    for (var kk = 0u; kk < min(dims.k, T); kk++) {
        for (var r = 0u; r < 4u; r++) {
            for (var q = 0u; q < 4u; q++) {
                acc[r * 4u + q] += ta[(lid.y * 4u + r) * T + kk] * tb[kk * T + lid.x * 4u + q];
            }
        }
    }
    let base = wid.x * T * T;
    for (var r = 0u; r < 4u; r++) {
        for (var q = 0u; q < 4u; q++) {
            let o = base + (lid.y * 4u + r) * T + lid.x * 4u + q;
            if (o < arrayLength(&c)) {
                c[o] = acc[r * 4u + q];
            }
        }
    }
}
