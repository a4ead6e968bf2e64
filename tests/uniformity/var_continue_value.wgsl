// The value a variable has at a continue reaches the continuing block.
@group(0) @binding(0) var<uniform> u: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 0u;
    var y = 0u;
    var i = 0u;
    loop {
        if i >= 4u { break; }
        if i == u {
            x = lid;
            continue;
        }
        continuing {
            y = x;
            i++;
        }
    }
    let last = y;
}
