// A return under a uniform condition leaves uniform control flow behind.
@group(0) @binding(0) var<uniform> enabled: u32;
@compute @workgroup_size(64)
fn main() {
    if enabled == 0u {
        return;
    }
    workgroupBarrier();
}
