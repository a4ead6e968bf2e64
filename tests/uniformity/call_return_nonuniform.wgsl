// A function returning a non-uniform value gets ReturnValueMayBeNonUniform.
@group(0) @binding(0) var<storage, read_write> state: u32;
fn read_state() -> u32 {
    return state;
}
@compute @workgroup_size(64)
fn main() {
    let s = read_state();
    if s == 0u {
        workgroupBarrier();
    }
}
