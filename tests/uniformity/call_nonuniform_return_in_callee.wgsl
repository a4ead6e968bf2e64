// Control flow after a call is as uniform as before it, even when the callee returns non-uniformly.
fn early(x: u32) -> u32 {
    if x == 0u {
        return 1u;
    }
    return 2u;
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let r = early(lid);
    workgroupBarrier();
}
