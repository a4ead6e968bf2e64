// divlab-profile: --dispatch 4
// divlab-profile-expect: exit 2
// A kernel from a templating host: the workgroup size and the loop bound are placeholders that
// the host substitutes before compiling.
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size({{ workgroup_size }})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0.0;
    for (var k = 0u; k < {{ K }}u; k++) {
        acc += a[gid.x * {{ K }}u + k];
    }
    out[gid.x] = acc;
}
