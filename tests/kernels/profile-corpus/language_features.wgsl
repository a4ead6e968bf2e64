// divlab-profile: --dispatch 2
// Newer WGSL in one kernel: alias, const_assert, a diagnostic directive, a const lookup table
// indexed at run time, bitcast and packing builtins, an i32 loop counting down, a helper with an
// early return, and @must_use.
diagnostic(off, derivative_uniformity);

alias Index = u32;

const TABLE = array<u32, 8>(3u, 1u, 4u, 1u, 5u, 9u, 2u, 6u);
const LEN: Index = 8u;
const_assert LEN == 8u;

@group(0) @binding(0) var<storage, read> words: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@must_use
fn classify(x: f32) -> u32 {
    if (x != x) {
        return 3u;
    }
    if (abs(x) > 1.0e30) {
        return 2u;
    }
    return select(0u, 1u, x < 0.0);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i: Index = gid.x;
    if (i >= arrayLength(&words) || i >= arrayLength(&out)) {
        return;
    }
    let w = words[i];
    let f = bitcast<f32>(w);
    let kind = classify(f);
    let rgba = unpack4x8unorm(w);
    var acc = pack2x16float(rgba.xy) ^ TABLE[w % LEN];
    for (var k: i32 = i32(w & 7u); k >= 0; k--) {
        acc = (acc << 1u) | (acc >> 31u);
        if (TABLE[u32(k)] > 4u) {
            acc ^= 0x9e3779b9u;
        }
    }
    out[i] = acc + kind;
}
