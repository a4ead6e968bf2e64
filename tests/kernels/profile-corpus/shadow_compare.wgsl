// divlab-profile: --dispatch 2,2 --size shadow_map=16x16
// Percentage-closer filtering in compute: a depth texture read through a comparison sampler at
// 3x3 offsets; pixels outside the light's view are lit without a lookup.
struct Light {
    bias: f32,
    texel: f32,
}

@group(0) @binding(0) var shadow_map: texture_depth_2d;
@group(0) @binding(1) var shadow_smp: sampler_comparison;
@group(0) @binding(2) var<storage, read> receivers: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> lit: array<f32>;
@group(0) @binding(4) var<uniform> light: Light;

@compute @workgroup_size(8, 8)
fn pcf(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.y * groups.x * 8u + gid.x;
    if (i >= arrayLength(&receivers) || i >= arrayLength(&lit)) {
        return;
    }
    let r = receivers[i];
    let uv = r.xy * 0.5 + 0.5;
    if (any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0))) {
        lit[i] = 1.0;
        return;
    }
    var sum = 0.0;
    for (var y = -1; y <= 1; y++) {
        for (var x = -1; x <= 1; x++) {
            let o = vec2<f32>(f32(x), f32(y)) * 0.0625;
            sum += textureSampleCompareLevel(shadow_map, shadow_smp, uv + o, r.z - light.bias);
        }
    }
    lit[i] = sum / 9.0;
}
