// An inner loop with a non-uniform trip count rejoins at its end: the outer body is uniform after it.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    for (var i = 0u; i < 4u; i++) {
        for (var j = 0u; j < lid; j++) {
            storageBarrier();
        }
        workgroupBarrier();
    }
}
