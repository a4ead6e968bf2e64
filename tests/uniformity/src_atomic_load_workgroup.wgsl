// AtomicLoad of a workgroup atomic is non-uniform.
var<workgroup> done: atomic<u32>;
@compute @workgroup_size(64)
fn main() {
    let d = atomicLoad(&done);
    if d == 0u {
        workgroupBarrier();
    }
}
