// A for whose body always breaks runs at most once: a barrier before a non-uniform break is uniform.
@group(0) @binding(0) var<uniform> un: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    for (var i = 0u; i < un.x; i++) {
        workgroupBarrier();
        if lid > 3u {
            break;
        }
        break;
    }
}
