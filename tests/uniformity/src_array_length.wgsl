// ArrayLength takes a pointer without loading: uniform even for read_write storage.
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main() {
    let len = arrayLength(&data);
    if len > 64u {
        workgroupBarrier();
    }
}
