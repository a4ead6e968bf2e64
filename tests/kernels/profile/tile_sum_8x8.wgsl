// divlab-profile: --dispatch 2,2 --lanes 20
// One 8x8 tile per workgroup: weight the three left columns, sum each subgroup with
// subgroupAdd, then the first invocation adds the subgroups' partial sums.
enable subgroups;

@group(0) @binding(0) var<storage, read> tiles: array<f32>;
@group(0) @binding(1) var<storage, read_write> sums: array<f32>;

var<workgroup> partial: array<f32, 64>;

@compute @workgroup_size(8, 8)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(subgroup_size) sg: u32) {
    let tile = wid.x + wid.y * groups.x;
    var v = tiles[tile * 64u + li];
    if (lid.x < 3u) { // tile: left
        v = v * 2.0; // tile: weight
    }
    let s = subgroupAdd(v);
    if (li % sg == 0u) { // tile: leader
        partial[li / sg] = s; // tile: partial
    }
    workgroupBarrier();
    if (li == 0u) { // tile: first
        var total = 0.0;
        for (var k = 0u; k < 64u / sg; k++) { // tile: gather
            total += partial[k]; // tile: add
        }
        sums[tile] = total;
    }
}
