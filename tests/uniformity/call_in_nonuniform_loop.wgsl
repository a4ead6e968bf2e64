// A helper called in a loop with a non-uniform exit: the call is in non-uniform control flow.
fn sync() { workgroupBarrier(); }
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var i = 0u;
    loop {
        sync();
        i++;
        if i > lid { break; }
    }
}
