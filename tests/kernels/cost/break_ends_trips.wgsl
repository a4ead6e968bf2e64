// divlab-profile: --dispatch 16
// An escape-time loop in the pattern of fractal and ray-march kernels: each lane runs trips of 16
// FMAs until its own test passes and breaks, then every lane stores what it reached. A `break` skips the
// rest of its trip and every later one, so the whole loop (lines 16 to 23) is the `if`'s work.
// Lane g stops at trip 77·g mod 251: a subgroup runs until its last lane stops, and following
// its first lane it stops on that lane's trip instead, which over these 1,024 lanes is 43% fewer
// trips at W = 8 (48% at W = 32). Every lane runs the store after the loop either way, so no
// work outside the branch moves.
@group(0) @binding(0) var<storage, read_write> reached: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let stop = (gid.x * 77u) % 251u;
    var x = 1.0;
    var j = 0u;
    for (; j < 256u; j++) {
        if (j == stop) { // the branch
            break;
        }
        for (var i = 0u; i < 16u; i++) {
            x = fma(x, 0.999, 0.5);
        }
    }
    reached[gid.x] = x + f32(j);
}
