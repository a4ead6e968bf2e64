// WorkgroupUniformLoad's pointer must be uniform: an index by local_invocation_index is an error.
var<workgroup> slots: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let f = workgroupUniformLoad(&slots[lid]);
}
