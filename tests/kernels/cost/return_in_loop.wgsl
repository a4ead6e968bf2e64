// divlab-profile: --dispatch 16
// A linear search in the pattern of lookup kernels: each lane scans for its own key and returns
// where it finds it, so the `if` is the whole loop body. A `return` in a loop skips the rest of
// the function and the loop's later trips, the `if`'s own line included: the whole loop and what
// follows it (lines 15 to 22) is the `if`'s work. Lane g finds its key on trip 77·g mod 251:
// following its first lane, a subgroup returns on that lane's trip, not its last lane's, which
// over these 1,024 lanes is 43% fewer trips at W = 8 (48% at W = 32), and nothing outside the
// branch moves. Before the loop counted as the `if`'s, the `if`'s own line, evaluated once a
// trip, moved outside it and this read `confounded`.
@group(0) @binding(0) var<storage, read_write> found: array<i32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let key = (gid.x * 37u) % 251u;
    for (var j = 0u; j < 256u; j++) {
        if ((j * 7u) % 251u == key) { // the branch
            found[gid.x] = i32(j);
            return;
        }
    }
    found[gid.x] = -1;
}
