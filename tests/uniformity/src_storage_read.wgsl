// A load from read-only storage is uniform.
@group(0) @binding(0) var<storage, read> table: array<u32>;
@compute @workgroup_size(64)
fn main() {
    let k = table[3];
    if k > 4u {
        workgroupBarrier();
    }
}
