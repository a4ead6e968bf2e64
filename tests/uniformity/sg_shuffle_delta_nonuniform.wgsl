// SubgroupShuffleDown's delta must be uniform; subgroupShuffle's id need not be.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    let a = subgroupShuffleDown(lane, 1u);
    let b = subgroupShuffleDown(lane, lane % 4u);
    let c = subgroupShuffle(lane, lane ^ 1u);
    let d = subgroupShuffleUp(lane, lane);
}
