// divlab-profile: --dispatch 16
// The branch picks how many trips the loop after it runs: following its first (even) lane, every
// lane would run 96 trips instead of half of them 12. The work outside the branch moves, so its
// saving is not the divergence's (confounded).
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    var x = data[gid.x];
    var trips = 0u;
    if (gid.x % 2u == 0u) { // the branch
        trips = 96u;
    } else {
        trips = 12u;
    }
    for (var i = 0u; i < trips; i++) {
        x = fma(x, 0.999, 0.5);
    }
    data[gid.x] = x;
}
