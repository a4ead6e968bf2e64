// divlab-profile: --dispatch 4 --buffer counter=zeros
// Stream compaction with subgroups: each lane keeps its element if it passes a threshold, the
// subgroup counts its keepers with a ballot and an exclusive scan, one lane reserves space with
// an atomic, and every keeper writes to its slot.
enable subgroups;

@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<storage, read_write> counter: atomic<u32>;

@compute @workgroup_size(64)
fn compact(@builtin(global_invocation_id) gid: vec3<u32>) {
    var keep = false;
    var v = 0.0;
    if (gid.x < arrayLength(&input)) {
        v = input[gid.x];
        keep = v > 0.5;
    }
    let votes = subgroupAdd(select(0u, 1u, keep));
    let my_slot = subgroupExclusiveAdd(select(0u, 1u, keep));
    var base = 0u;
    if (subgroupElect()) {
        base = atomicAdd(&counter, votes);
    }
    base = subgroupBroadcastFirst(base);
    if (keep) {
        let dst = base + my_slot;
        if (dst < arrayLength(&output)) {
            output[dst] = v;
        }
    }
}
