// divlab-profile: --dispatch 4 --size cascades=16x16x4 --size point_shadow=8
// Shadow lookups against cascaded (depth 2-D array) and point-light (depth cube) maps with a
// comparison sampler; each receiver picks its cascade by distance.
@group(0) @binding(0) var cascades: texture_depth_2d_array;
@group(0) @binding(1) var point_shadow: texture_depth_cube;
@group(0) @binding(2) var cmp: sampler_comparison;
@group(0) @binding(3) var<storage, read> receivers: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> visibility: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&receivers) || i >= arrayLength(&visibility)) {
        return;
    }
    let r = receivers[i];
    let dist = abs(r.w);
    var cascade = 3;
    if (dist < 0.25) {
        cascade = 0;
    } else if (dist < 0.5) {
        cascade = 1;
    } else if (dist < 0.75) {
        cascade = 2;
    }
    let uv = fract(r.xy);
    let sun = textureSampleCompareLevel(cascades, cmp, uv, cascade, r.z);
    let point = textureSampleCompareLevel(point_shadow, cmp, normalize(r.xyz + vec3<f32>(0.01)), fract(r.w));
    visibility[i] = sun * point;
}
