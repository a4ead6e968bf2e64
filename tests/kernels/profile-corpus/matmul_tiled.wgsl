// divlab-profile: --dispatch 2,2 --buffer dims=values:32,32,32,0
// Tiled matrix multiply: each 8x8 workgroup stages one tile of A and one of B in workgroup memory
// per step, with barriers around the inner product. Edge tiles pad with zeros.
struct Dims {
    rows: u32,
    inner: u32,
    cols: u32,
    pad: u32,
}

const TILE: u32 = 8u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

var<workgroup> tile_a: array<array<f32, TILE>, TILE>;
var<workgroup> tile_b: array<array<f32, TILE>, TILE>;

@compute @workgroup_size(TILE, TILE, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let r = gid.y;
    let col = gid.x;
    var acc = 0.0;
    let tiles = (dims.inner + TILE - 1u) / TILE;
    for (var t = 0u; t < tiles; t++) {
        let k0 = t * TILE;
        var av = 0.0;
        if (r < dims.rows && k0 + lid.x < dims.inner) {
            av = a[(r * dims.inner + k0 + lid.x) % arrayLength(&a)];
        }
        tile_a[lid.y][lid.x] = av;
        var bv = 0.0;
        if (col < dims.cols && k0 + lid.y < dims.inner) {
            bv = b[((k0 + lid.y) * dims.cols + col) % arrayLength(&b)];
        }
        tile_b[lid.y][lid.x] = bv;
        workgroupBarrier();
        for (var k = 0u; k < TILE; k++) {
            acc += tile_a[lid.y][k] * tile_b[k][lid.x];
        }
        workgroupBarrier();
    }
    if (r < dims.rows && col < dims.cols) {
        c[(r * dims.cols + col) % arrayLength(&c)] = acc;
    }
}
