// divlab-profile: --dispatch 2,2 --buffer grid=values:16.0,16.0,1.0,0.0
// One Jacobi iteration of a pressure solve on a grid of storage buffers: the grid size is a
// uniform vec4<f32>, boundary cells take their own value for missing neighbours.
@group(0) @binding(0) var<storage, read> divergence: array<f32>;
@group(0) @binding(1) var<storage, read> pressure_in: array<f32>;
@group(0) @binding(2) var<uniform> grid: vec4<f32>;
@group(0) @binding(3) var<storage, read_write> pressure_out: array<f32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let w = u32(grid.x);
    let h = u32(grid.y);
    if (gid.x >= w || gid.y >= h) {
        return;
    }
    let i = (gid.x + gid.y * w) % arrayLength(&pressure_in);
    let here = pressure_in[i];
    let left = select(here, pressure_in[(i + arrayLength(&pressure_in) - 1u) % arrayLength(&pressure_in)], gid.x > 0u);
    let right = select(here, pressure_in[(i + 1u) % arrayLength(&pressure_in)], gid.x + 1u < w);
    let up = select(here, pressure_in[(i + arrayLength(&pressure_in) - w % arrayLength(&pressure_in)) % arrayLength(&pressure_in)], gid.y > 0u);
    let down = select(here, pressure_in[(i + w) % arrayLength(&pressure_in)], gid.y + 1u < h);
    let alpha = -(grid.z * grid.z);
    pressure_out[i % arrayLength(&pressure_out)] = (alpha * divergence[i % arrayLength(&divergence)] + left + right + up + down) * 0.25;
}
