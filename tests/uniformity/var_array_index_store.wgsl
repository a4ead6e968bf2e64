// Storing through a non-uniform index is a partial assignment that depends on the index.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var a = array<u32, 4>(0u, 0u, 0u, 0u);
    a[lid % 4u] = 1u;
    let first = a[0];
    if first == 1u {
        workgroupBarrier();
    }
}
