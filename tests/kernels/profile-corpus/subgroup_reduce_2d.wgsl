// divlab-profile: --dispatch 2,2 --len tile_sums=4
// A 2-D tile sum: each 8x8 workgroup adds its pixels with subgroupAdd, one lane per subgroup
// (subgroupElect) adds its partial into workgroup memory, and the first invocation writes it.
enable subgroups;

@group(0) @binding(0) var<storage, read> image: array<f32>;
@group(0) @binding(1) var<storage, read_write> tile_sums: array<f32>;

var<workgroup> partial: atomic<u32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    if (li == 0u) {
        atomicStore(&partial, 0u);
    }
    workgroupBarrier();
    let width = groups.x * 8u;
    let i = gid.y * width + gid.x;
    var v = 0.0;
    if (i < arrayLength(&image)) {
        v = abs(image[i]);
    }
    let sum = subgroupAdd(u32(min(v, 1000.0)));
    if (subgroupElect()) {
        atomicAdd(&partial, sum);
    }
    workgroupBarrier();
    if (li == 0u) {
        tile_sums[wg.y * groups.x + wg.x] = f32(atomicLoad(&partial));
    }
}
