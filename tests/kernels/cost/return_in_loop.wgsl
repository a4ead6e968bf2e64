// divlab-profile: --dispatch 4
// A linear search in the pattern of lookup kernels: each lane scans for its own key and returns
// where it finds it, so the `if` is the whole loop body. Following its first lane, a subgroup
// returns where that lane's key is found, and its other lanes stop searching: the variant ends
// the loop's trips early, which is less work, not the divergence's cost. The `if`'s own line
// is evaluated fewer times (once a trip), so the work outside the branch moved: `confounded`.
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
