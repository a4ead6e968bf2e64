// divlab-profile: --dispatch 4
// A workgroup reduction that goes through subgroups: each subgroup adds its lanes, subgroup 0
// adds the per-subgroup partials (subgroup_id, num_subgroups), for any subgroup width.
enable subgroups;

@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;

var<workgroup> partials: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(subgroup_id) sg: u32,
        @builtin(num_subgroups) nsg: u32,
        @builtin(subgroup_invocation_id) lane: u32) {
    var v = 0u;
    if (gid.x < arrayLength(&values)) {
        v = values[gid.x] & 0xffffu;
    }
    let s = subgroupAdd(v);
    if (lane == 0u) {
        partials[sg] = s;
    }
    workgroupBarrier();
    if (sg == 0u) {
        var t = 0u;
        for (var i = lane; i < nsg; i += subgroupMax(lane) + 1u) {
            t += partials[i];
        }
        let total = subgroupAdd(t);
        if (lane == 0u && wid.x < arrayLength(&sums)) {
            sums[wid.x] = total;
        }
    }
}
