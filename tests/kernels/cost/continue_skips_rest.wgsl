// divlab-profile: --dispatch 16
// A culling loop in the pattern of light and neighbour loops: `if (…) { continue; }` skips the
// rest of the trip, a loop of 256 FMAs, for half the lanes of every subgroup, on every trip. The
// code after the `if`, to the end of the loop body, is its `else` in all but name: it is the
// branch's work, not work outside it (outside change 0, not `confounded`). Following its first
// lane (lane parity flips each trip), a subgroup skips the FMA loop on 2 of the 4 trips and
// runs it with all its lanes on the other 2, where diverged it ran it on all 4: the model
// predicts half the kernel's FMA work saved.
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    var x = data[gid.x];
    for (var light = 0u; light < 4u; light++) {
        if ((gid.x + light) % 2u == 0u) { // the branch
            continue;
        }
        for (var i = 0u; i < 256u; i++) {
            x = fma(x, 0.999, 0.5);
        }
    }
    data[gid.x] = x;
}
