// A pointee that controls a barrier gets ParameterContentsRequiredToBeUniform.
fn sync_if(p: ptr<function, u32>) {
    if *p > 0u {
        workgroupBarrier();
    }
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var uniform_count = 4u;
    var lane_count = lid;
    sync_if(&uniform_count);
    sync_if(&lane_count);
}
