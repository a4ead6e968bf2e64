// A non-uniform break-if makes the next iteration non-uniform: the barrier in the body is an error.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var i = 0u;
    loop {
        workgroupBarrier();
        i++;
        continuing {
            break if i > lid;
        }
    }
}
