// divlab-profile: --dispatch 2
// A tour of subgroup builtins, as wgpu's example does: ballots, votes, reductions, scans and
// shuffles of each lane's own index, folded into one word per invocation.
enable subgroups;

@group(0) @binding(0) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(128)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) width: u32) {
    var bits = 0u;
    let odd = subgroupBallot((lane & 1u) == 1u);
    if (countOneBits(odd.x) == min(width, 32u) / 2u) {
        bits |= 1u;
    }
    if (subgroupAll(lane < width)) {
        bits |= 2u;
    }
    if (subgroupAny(lane == 0u)) {
        bits |= 4u;
    }
    if (subgroupAdd(1u) == width) {
        bits |= 8u;
    }
    if (subgroupExclusiveAdd(1u) == lane) {
        bits |= 16u;
    }
    if (subgroupMax(lane) == width - 1u) {
        bits |= 32u;
    }
    if (subgroupShuffleXor(lane, 1u) == (lane ^ 1u)) {
        bits |= 64u;
    }
    if (subgroupBroadcastFirst(lane) == 0u) {
        bits |= 128u;
    }
    if (lane < width / 2u) {
        // Half the subgroup: the others sit out.
        bits |= subgroupOr(lane) << 8u;
    }
    results[gid.x] = bits;
}
