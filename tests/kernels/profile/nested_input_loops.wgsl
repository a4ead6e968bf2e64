// divlab-profile: --buffer params=values:4000000000,4000000000 --loop-cap 1000
// A loop nest bounded by a uniform's fields, as a kernel over rows and columns is: with huge
// inputs, 1.6e19 trips per invocation unless the loop cap bounds them all together.

struct Params {
    rows: u32,
    cols: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0u;
    for (var r = 0u; r < params.rows; r++) { // nest: rows
        for (var c = 0u; c < params.cols; c++) { // nest: cols
            acc += r ^ c; // nest: body
        }
    }
    out[gid.x] = acc; // nest: after
}
