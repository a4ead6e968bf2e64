// A `let` pointer loaded inside a branch: naga gives the load the `let`'s span, but the `let`
// runs in uniform control flow, and only the branch's lines run in non-uniform control flow.
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let slot = &data[lid];
    if lid % 2u == 0u {
        let before = *slot;
        *slot = before + 1u;
    }
    workgroupBarrier();
}
