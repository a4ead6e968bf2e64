// divlab-profile: --dispatch 1 --texture t1=checker:1 --texture t2a=checker:1 --size t2a=8x8x2 --texture t3=checker:1 --size t3=4x4x4 --size tc=4 --size tca=4x2 --texture tms=values:1 --size tms=8x8 --texture td=checker:1 --size td=8x8 --texture tu=iota --size tu=8x8 --texture ti=checker:1 --size ti=8x8 --texture tdms=values:1 --size tdms=8x8
// One of every texture type a compute entry point can bind, each read once per invocation and
// branched on, so each branch's lanes follow from the texture's fill.
@group(0) @binding(0) var t1: texture_1d<f32>;
@group(0) @binding(1) var t2a: texture_2d_array<f32>;
@group(0) @binding(2) var t3: texture_3d<f32>;
@group(0) @binding(3) var tc: texture_cube<f32>;
@group(0) @binding(4) var tca: texture_cube_array<f32>;
@group(0) @binding(5) var tms: texture_multisampled_2d<f32>;
@group(0) @binding(6) var td: texture_depth_2d;
@group(0) @binding(7) var smp: sampler;
@group(0) @binding(8) var cmp: sampler_comparison;
@group(0) @binding(9) var<storage, read_write> hits: array<u32>;
@group(1) @binding(0) var tu: texture_2d<u32>;
@group(1) @binding(1) var ti: texture_2d<i32>;
@group(1) @binding(2) var tdms: texture_depth_multisampled_2d;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let p = vec2<u32>(i % 8u, i / 8u);
    let uv = (vec2<f32>(p) + 0.5) / 8.0;
    var n = 0u;
    if (textureLoad(t1, i, 0).r > 0.5) {
        n += 1u; // t1
    }
    if (textureLoad(t2a, p, 1, 0).r > 0.5) {
        n += 1u; // t2a
    }
    if (textureLoad(t3, vec3<u32>(i % 4u, (i / 4u) % 4u, i / 16u), 0).r > 0.5) {
        n += 1u; // t3
    }
    let dir = normalize(vec3<f32>(uv * 2.0 - 1.0, 1.0));
    let cube = textureSampleLevel(tc, smp, dir, 0.0).r + textureSampleLevel(tca, smp, dir, 1, 0.0).r;
    if (cube >= 0.0) {
        n += 1u; // cube
    }
    if (textureLoad(tms, p, 2).r > 0.5) {
        n += 1u; // tms
    }
    if (textureLoad(td, p, 0) > 0.5) {
        n += 1u; // td
    }
    if (textureSampleCompareLevel(td, cmp, uv, 0.5) > 0.5) {
        n += 1u; // cmp
    }
    if (textureLoad(tu, p, 0).r % 8u == 0u) {
        n += 1u; // tu
    }
    if (textureLoad(ti, p, 0).r == 1) {
        n += 1u; // ti
    }
    if (textureLoad(tdms, p, 3) > 0.5) {
        n += 1u; // tdms
    }
    hits[i] = n;
}
