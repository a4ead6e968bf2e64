// A full assignment replaces a non-uniform value: the variable is uniform again.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = lid;
    let before = x;
    x = 7u;
    let after = x;
    if after == 7u {
        workgroupBarrier();
    }
}
