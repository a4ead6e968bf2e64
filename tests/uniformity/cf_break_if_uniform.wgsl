// Break-if on a uniform value keeps the loop uniform.
@group(0) @binding(0) var<uniform> n: u32;
@compute @workgroup_size(64)
fn main() {
    var i = 0u;
    loop {
        workgroupBarrier();
        continuing {
            i++;
            break if i >= n;
        }
    }
}
