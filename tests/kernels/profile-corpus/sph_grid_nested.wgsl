// divlab-profile: --dispatch 2 --len positions=128 --len forces=128 --len cell_start=64 --len cell_end=64
// SPH forces over a uniform grid: each particle visits the 27 cells around it and, in each, the
// particles from cell_start to cell_end (storage arrays). The inner bounds are inputs: random
// fills make nested loops that run for a very long time unless the cap covers them together.
struct Grid {
    h: f32,
    stiffness: f32,
    cells: vec3<u32>,
}

@group(0) @binding(0) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> cell_start: array<u32>;
@group(0) @binding(2) var<storage, read> cell_end: array<u32>;
@group(0) @binding(3) var<storage, read_write> forces: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> grid: Grid;

fn cell_index(c: vec3<i32>) -> u32 {
    let dims = vec3<i32>(max(grid.cells, vec3<u32>(1u)));
    let w = (c % dims + dims) % dims;
    return u32(w.x + dims.x * (w.y + dims.y * w.z)) % arrayLength(&cell_start);
}

@compute @workgroup_size(64)
fn forces_main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let me = gid.x;
    let n = arrayLength(&positions);
    if (me >= n) {
        return;
    }
    let p = positions[me].xyz;
    let home = vec3<i32>(floor(p / max(grid.h, 1e-3)));
    var f = vec3<f32>(0.0);
    for (var dz = -1; dz <= 1; dz++) {
        for (var dy = -1; dy <= 1; dy++) {
            for (var dx = -1; dx <= 1; dx++) {
                let c = cell_index(home + vec3<i32>(dx, dy, dz));
                for (var j = cell_start[c]; j < cell_end[c]; j++) {
                    let q = positions[j % n].xyz;
                    let d = p - q;
                    let r = length(d);
                    if (r > 0.0 && r < grid.h) {
                        f += grid.stiffness * (grid.h - r) * d / r;
                    }
                }
            }
        }
    }
    forces[me] = vec4<f32>(f, 0.0);
}
