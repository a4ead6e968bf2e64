// A parameter that controls a barrier gets ParameterRequiredToBeUniform: the argument must be uniform.
@group(0) @binding(0) var<uniform> count: u32;
fn maybe_sync(c: u32) {
    if c > 0u {
        workgroupBarrier();
    }
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    maybe_sync(count);
    maybe_sync(lid);
}
