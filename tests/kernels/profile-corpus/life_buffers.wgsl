// divlab-profile: --dispatch 4,4 --buffer size=values:32,32
// The game of life on storage buffers of cells, as WebGPU samples write it: the board size is a
// uniform vec2, each invocation owns one cell and counts its eight neighbours.
@group(0) @binding(0) var<uniform> size: vec2<u32>;
@group(0) @binding(1) var<storage, read> cells_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> cells_out: array<u32>;

fn cell(x: u32, y: u32) -> u32 {
    let i = (y % size.y) * size.x + (x % size.x);
    return cells_in[i] & 1u;
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = gid.x;
    let y = gid.y;
    if (x >= size.x || y >= size.y) {
        return;
    }
    let w = size.x;
    let h = size.y;
    let n = cell(x + w - 1u, y + h - 1u) + cell(x, y + h - 1u) + cell(x + 1u, y + h - 1u)
          + cell(x + w - 1u, y) + cell(x + 1u, y)
          + cell(x + w - 1u, y + 1u) + cell(x, y + 1u) + cell(x + 1u, y + 1u);
    let i = y * w + x;
    switch n {
        case 2u: {
            cells_out[i] = cell(x, y);
        }
        case 3u: {
            cells_out[i] = 1u;
        }
        default: {
            cells_out[i] = 0u;
        }
    }
}
