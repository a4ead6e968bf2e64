// A while loop on a uniform variable.
@group(0) @binding(0) var<uniform> start: u32;
@compute @workgroup_size(64)
fn main() {
    var x = start;
    while x > 0u {
        x = x / 2u;
        workgroupBarrier();
    }
}
