// divlab-profile: --dispatch 16
// The two sides of a lane-parity `if` do their work in functions: one calls `damp`, which calls
// `fma_loop`, the other calls `fma_loop` itself, a loop of 1,024 FMAs either way. A diverged
// subgroup runs the loop twice, half its lanes each time; following its first lane, once. The
// functions' lines are the sides' work, not work outside the branch: the variant changes no
// line outside them (outside change 0, not `confounded`), and the model predicts about half
// the kernel, as for parity_equal_sides.wgsl, where the loops are written in the sides.
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

fn fma_loop(x: f32, scale: f32, offset: f32) -> f32 {
    var y = x;
    for (var i = 0u; i < 1024u; i++) {
        y = fma(y, scale, offset);
    }
    return y;
}

fn damp(x: f32) -> f32 {
    return fma_loop(x, 0.999, 0.5);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    var x = data[gid.x];
    if (gid.x % 2u == 0u) { // the branch
        x = damp(x);
    } else {
        x = fma_loop(x, 0.998, 0.25);
    }
    data[gid.x] = x;
}
