// A switch on a non-uniform selector makes every case non-uniform.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    switch lid % 3u {
        case 0u: {
            workgroupBarrier();
        }
        case 1u, 2u: {
            storageBarrier();
        }
        default: { }
    }
    workgroupBarrier();
}
