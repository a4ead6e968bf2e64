// divlab-profile: --dispatch 4 --len rows=8
// A bare uniform count and a nested loop, as a tiled matrix-vector product writes it: each of
// the `n` invocations walks `rows` rows of 8 entries and skips the odd columns of odd rows.
@group(0) @binding(0) var<uniform> n: u32;
@group(0) @binding(1) var<storage, read> rows: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= n) { // guard
        return;
    }
    var acc = 0.0;
    for (var r = 0u; r < arrayLength(&rows); r++) { // rows
        for (var c = 0u; c < 4u; c++) { // columns
            if ((r & 1u) == 1u && (c & 1u) == 1u) { // odd
                continue;
            }
            acc += rows[r][c] * f32(gid.x % 5u); // add
        }
    }
    out[gid.x] = acc;
}
