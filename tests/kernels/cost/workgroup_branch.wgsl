// divlab-profile: --dispatch 8
// The branch is on the workgroup: every lane of a subgroup agrees, so it never diverges and no
// variant runs (not_divergent).
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(workgroup_id) wg: vec3u) {
    var x = data[gid.x];
    if (wg.x % 2u == 0u) { // the branch
        x = x * 2.0;
    } else {
        x = x + 1.0;
    }
    data[gid.x] = x;
}
