// divlab-profile: --dispatch 4 --buffer params=values:4096
// A 1-D convolution over `taps` (a uniform count) with a fixed inner loop over the four channels
// of each tap: a long outer loop around a short constant one.
@group(0) @binding(0) var<uniform> params: u32;
@group(0) @binding(1) var<storage, read> signal: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&signal);
    var acc = 0.0;
    for (var t = 0u; t < params; t++) {
        let s = signal[(gid.x + t) % n];
        for (var c = 0u; c < 4u; c++) {
            acc += s[c] * f32(c + 1u);
        }
    }
    if (gid.x < arrayLength(&out)) {
        out[gid.x] = acc;
    }
}
