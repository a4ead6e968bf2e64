// A function containing a barrier gets CallSiteRequiredToBeUniform; a call in uniform control flow is valid.
fn sync() {
    workgroupBarrier();
}
@compute @workgroup_size(64)
fn main() {
    sync();
}
