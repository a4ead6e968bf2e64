// An atomic's result is non-uniform.
@group(0) @binding(0) var<storage, read_write> counter: atomic<u32>;
@compute @workgroup_size(64)
fn main() {
    let ticket = atomicAdd(&counter, 1u);
    if ticket == 0u {
        workgroupBarrier();
    }
}
