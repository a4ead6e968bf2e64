// A variable assigned a non-uniform value in one case of a uniform switch is non-uniform after it.
@group(0) @binding(0) var<uniform> mode: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 0u;
    switch mode {
        case 0u: { x = lid; }
        case 1u: { x = 2u; }
        default: { }
    }
    if x == 2u {
        workgroupBarrier();
    }
}
