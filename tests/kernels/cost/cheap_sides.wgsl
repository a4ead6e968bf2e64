// divlab-profile: --dispatch 64
// Each side is one cheap operation; the heavy work after the branch is the same for every lane.
// Serialized or not, the branch is a sliver of the kernel: free_here, or a saving under 5%.
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    var x = data[gid.x];
    if (gid.x % 2u == 0u) { // the branch
        x = x * 1.5;
    } else {
        x = x + 0.5;
    }
    for (var i = 0u; i < 1024u; i++) {
        x = fma(x, 0.999, 0.5);
    }
    data[gid.x] = x;
}
