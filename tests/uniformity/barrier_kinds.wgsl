// WorkgroupBarrier, storageBarrier and textureBarrier all need uniform control flow, and no filter changes that.
diagnostic(off, subgroup_uniformity);
diagnostic(off, derivative_uniformity);
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid == 1u {
        workgroupBarrier();
        storageBarrier();
        textureBarrier();
    }
}
