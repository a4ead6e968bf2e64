// Else-if is a nested if: the inner condition decides.
@group(0) @binding(0) var<uniform> mode: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if mode == 0u {
        workgroupBarrier();
    } else if lid == 0u {
        workgroupBarrier();
    } else {
        workgroupBarrier();
    }
}
