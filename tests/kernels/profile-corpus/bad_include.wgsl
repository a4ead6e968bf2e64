// divlab-profile: --dispatch 4
// divlab-profile-expect: exit 2
// Engine shaders often pull shared code in with a preprocessor line that a WGSL compiler never
// sees; handed to divlab as is, it is not WGSL.
#include "common/noise.wgsl"

@group(0) @binding(0) var<storage, read_write> field: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&field)) {
        field[gid.x] = field[gid.x] * 0.5;
    }
}
