// divlab-profile: --dispatch 4
// Entry-point builtins gathered in a struct, as some engines declare them, including the
// subgroup builtins and local_invocation_index that divlab's own counters also need.
enable subgroups;

struct ComputeIn {
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(in: ComputeIn) {
    if (in.gid.x >= arrayLength(&out)) {
        return;
    }
    var v = in.li;
    if (in.lane < in.width / 2u) {
        v += subgroupAdd(1u);
    } else {
        v ^= subgroupBroadcastFirst(in.gid.x);
    }
    out[in.gid.x] = v;
}
