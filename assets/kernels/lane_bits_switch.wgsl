// A switch on the low bits of the lane's own index: every subgroup sends its lanes down four
// cases, so each case runs with a quarter of the subgroup, one case after another.
//
// divlab profile assets/kernels/lane_bits_switch.wgsl --dispatch 4

enable subgroups;

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32) {
    var v = gid.x;
    switch (lane & 3u) {
        case 0u: {
            v = v * 3u + 1u;
        }
        case 1u: {
            v = v ^ 0x5555u;
        }
        case 2u: {
            v = v << 2u;
        }
        default: {
            v = v / 3u;
        }
    }
    out[gid.x] = v;
}
