// divlab-profile: --dispatch 2 --lanes 16
// A block of WIDTH x 2 x 4 (8 x 2 x 4 = 64 by default) per workgroup, as a volume kernel has:
// the invocations of layer z = 1 write, with the layer's highest z as every subgroup sees it.
enable subgroups;

override WIDTH: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(WIDTH, 2, 4)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wid: vec3<u32>) {
    let top = subgroupMax(lid.z); // layers: top
    if (lid.z == 1u) { // layers: branch
        out[wid.x * 64u + li] = top + lid.x + 4u * lid.y; // layers: write
    }
}
