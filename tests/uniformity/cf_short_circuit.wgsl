// The left operand of || decides whether the right one runs: a non-uniform left makes the condition non-uniform.
@group(0) @binding(0) var<uniform> mode: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u || mode == 1u {
        workgroupBarrier();
    }
    if mode == 1u && mode == 2u {
        workgroupBarrier();
    }
}
