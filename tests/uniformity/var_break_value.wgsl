// The value a variable has at a break reaches the code after the loop.
@group(0) @binding(0) var<uniform> limit: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 0u;
    loop {
        if x >= limit {
            x = lid;
            break;
        }
        x++;
    }
    if x == 0u {
        workgroupBarrier();
    }
}
