// Break-if on a non-uniform value makes the next iteration non-uniform.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var i = 0u;
    loop {
        workgroupBarrier();
        continuing {
            i++;
            break if i >= lid;
        }
    }
    workgroupBarrier();
}
