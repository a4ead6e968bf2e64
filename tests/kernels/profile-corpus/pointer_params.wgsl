// divlab-profile: --dispatch 2
// divlab-profile-expect: exit 2
// Helpers that take pointers into storage and workgroup memory (WGSL's unrestricted pointer
// parameters), as libraries that share one reduction over several buffers write them. Valid
// WGSL where the language feature is (Tint), but naga 30 refuses a storage pointer argument:
// divlab must say so with the location, exit 2.
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> sums: array<f32>;

var<workgroup> scratch: array<f32, 64>;

fn load_or_zero(src: ptr<storage, array<f32>, read>, i: u32) -> f32 {
    if (i < arrayLength(src)) {
        return (*src)[i];
    }
    return 0.0;
}

fn tree_sum(buf: ptr<workgroup, array<f32, 64>>, li: u32) -> f32 {
    for (var s = 32u; s > 0u; s >>= 1u) {
        if (li < s) {
            (*buf)[li] += (*buf)[li + s];
        }
        workgroupBarrier();
    }
    return (*buf)[0];
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wid: vec3<u32>) {
    scratch[li] = load_or_zero(&a, gid.x) * load_or_zero(&b, gid.x);
    workgroupBarrier();
    let total = tree_sum(&scratch, li);
    if (li == 0u && wid.x < arrayLength(&sums)) {
        sums[wid.x] = total;
    }
}
