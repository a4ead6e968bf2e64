// A function-scope variable's uniformity changes with each assignment in program order.
@group(0) @binding(0) var<uniform> u: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = u;
    let a = x;
    x = x + lid;
    let b = x;
    x = u * 2u;
    let c = x;
    x += 1u;
    let d = x;
}
