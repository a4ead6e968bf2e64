// A load from read_write storage may be non-uniform (another invocation may have written it).
@group(0) @binding(0) var<storage, read_write> flags: array<u32>;
@compute @workgroup_size(64)
fn main() {
    let k = flags[0];
    if k > 4u {
        workgroupBarrier();
    }
}
