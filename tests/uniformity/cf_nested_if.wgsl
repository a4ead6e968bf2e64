// A uniform inner condition does not undo a non-uniform outer one.
@group(0) @binding(0) var<uniform> mode: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid < 16u {
        if mode == 1u {
            workgroupBarrier();
        }
    }
}
