// A function without requirements may be called anywhere; its body is non-uniform when one call is.
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn mark(i: u32) {
    out[i] = 1u;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    mark(0u);
    if lid == 3u {
        mark(lid);
    }
    workgroupBarrier();
}
