// SubgroupShuffleXor's mask must be uniform; a mask from subgroup_size is.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) size: u32) {
    let a = subgroupShuffleXor(lane, size / 2u);
    let b = subgroupShuffleXor(lane, lane & 1u);
}
