// Every function is analyzed, called or not; an uncalled function's lines are not executed.
@group(0) @binding(0) var<storage, read_write> state: u32;
fn unused() {
    if state == 0u {
        workgroupBarrier();
    }
}
@compute @workgroup_size(64)
fn main() {
    workgroupBarrier();
}
