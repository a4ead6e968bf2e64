// ParameterReturnContentsRequiredToBeUniform: the result is as uniform as the argument.
@group(0) @binding(0) var<uniform> u: u32;
fn twice(x: u32) -> u32 {
    return 2u * x;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let a = twice(u);
    let b = twice(lid);
    if a == 4u {
        workgroupBarrier();
    }
    if b == 4u {
        workgroupBarrier();
    }
}
