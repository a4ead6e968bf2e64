// divlab-profile: --dispatch 16
// Eight cases on the lane's index within its subgroup, each a loop of FMAs with its own
// constants: on a subgroup of 8 lanes every case runs, one after the other. Following its first
// lane, a subgroup runs one case: the saving is 1 - 1/F(8) of the switch's time, where F is the
// study's serialization factor (divergence.switch).
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(subgroup_invocation_id) lane: u32) {
    var x = data[gid.x];
    switch (lane % 8u) { // the branch
        case 0u: { for (var i = 0u; i < 1536u; i++) { x = fma(x, 0.9991, 0.125); } }
        case 1u: { for (var i = 0u; i < 1536u; i++) { x = fma(x, 0.9992, 0.25); } }
        case 2u: { for (var i = 0u; i < 1536u; i++) { x = fma(x, 0.9993, 0.375); } }
        case 3u: { for (var i = 0u; i < 1536u; i++) { x = fma(x, 0.9994, 0.5); } }
        case 4u: { for (var i = 0u; i < 1536u; i++) { x = fma(x, 0.9995, 0.625); } }
        case 5u: { for (var i = 0u; i < 1536u; i++) { x = fma(x, 0.9996, 0.75); } }
        case 6u: { for (var i = 0u; i < 1536u; i++) { x = fma(x, 0.9997, 0.875); } }
        default: { for (var i = 0u; i < 1536u; i++) { x = fma(x, 0.9998, 1.0); } }
    }
    data[gid.x] = x;
}
