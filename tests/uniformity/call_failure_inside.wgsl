// A function is analyzed on its own: its internal non-uniform barrier is an error wherever it is called from.
@group(0) @binding(0) var<storage, read_write> state: u32;
fn bad() {
    if state == 0u {
        workgroupBarrier();
    }
}
@compute @workgroup_size(64)
fn main() {
    bad();
}
