// divlab-profile: --dispatch 2,2
// builtins_in_struct.wgsl's pattern in an 8x8 workgroup, where WGSL allows no
// subgroup_invocation_id: the struct carries local_invocation_index and subgroup_size, and a
// second struct carries the ids.
enable subgroups;

struct Ids {
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
}

struct Sub {
    @builtin(local_invocation_index) li: u32,
    @builtin(subgroup_size) width: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(8, 8)
fn main(ids: Ids, sub: Sub, @builtin(workgroup_id) wid: vec3<u32>) {
    let i = wid.x * 64u + sub.li;
    if (i >= arrayLength(&out)) {
        return;
    }
    if (subgroupElect()) {
        out[i] = subgroupAdd(ids.lid.x) + sub.width;
    } else if (ids.lid.y % 2u == 0u) {
        out[i] = ids.gid.y;
    }
}
