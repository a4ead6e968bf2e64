// divlab-profile: --dispatch 8 --len partial_sums=8
// A tree reduction in workgroup memory: each round halves the active lanes (`if lid < stride`),
// so whole subgroups drop out as the stride falls below the subgroup size.
const WG: u32 = 128u;

@group(0) @binding(0) var<storage, read> values: array<f32>;
@group(0) @binding(1) var<storage, read_write> partial_sums: array<f32>;

var<workgroup> scratch: array<f32, WG>;

@compute @workgroup_size(WG)
fn reduce(@builtin(global_invocation_id) gid: vec3<u32>,
          @builtin(local_invocation_id) lid: vec3<u32>,
          @builtin(workgroup_id) wid: vec3<u32>) {
    var v = 0.0;
    if (gid.x < arrayLength(&values)) {
        v = values[gid.x];
    }
    scratch[lid.x] = v;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if (lid.x < stride) {
            scratch[lid.x] += scratch[lid.x + stride];
        }
        workgroupBarrier();
    }
    if (lid.x == 0u) {
        partial_sums[wid.x] = scratch[0];
    }
}
