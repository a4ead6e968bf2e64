// divlab-profile: --buffer n=values:1000000000
// divlab-profile-expect: exit 1
// A short constant loop inside a very long uniform-bounded one (a convolution over a billion
// taps): every invocation runs into the loop cap, so the run must exit 1 and say so, on every
// adapter, never end quietly with a cut-short profile.
@group(0) @binding(0) var<uniform> n: u32;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0u;
    for (var t = 0u; t < n; t++) {
        for (var k = 0u; k < 8u; k++) {
            acc += k ^ t;
        }
    }
    if (gid.x < arrayLength(&out)) {
        out[gid.x] = acc;
    }
}
