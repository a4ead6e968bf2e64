// A loop body that ends in break: only its continue carries values to the next iteration, so x stays uniform (Tint differs).
@group(0) @binding(0) var<uniform> un: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 0u;
    loop {
        if un.x > 6u {
            continue;
        }
        if x > 0u {
            workgroupBarrier();
        }
        x = lid;
        break;
    }
}
