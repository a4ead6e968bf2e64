// SubgroupAll of a uniform value is uniform in its subgroup, not in the workgroup.
enable subgroups;
@group(0) @binding(0) var<storage, read> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let all = subgroupAll(data[0] > 0u);
    if all {
        let c = subgroupBallot(true);
        workgroupBarrier();
    }
}
