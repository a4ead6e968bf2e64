// divlab-profile: --dispatch 2 --len positions=128 --len densities=128
// SPH density by brute force: every particle sums the poly6 kernel over all others, the count
// taken from a uniform as the original does. A random count makes the loop run to the cap.
struct SimParams {
    mass: f32,
    h2: f32,
    poly6: f32,
    count: u32,
}

@group(0) @binding(0) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> densities: array<f32>;
@group(0) @binding(2) var<uniform> sim: SimParams;

@compute @workgroup_size(64)
fn density(@builtin(global_invocation_id) gid: vec3<u32>) {
    let me = gid.x;
    if (me >= sim.count || me >= arrayLength(&positions)) {
        return;
    }
    let p = positions[me].xyz;
    var rho = 0.0;
    for (var j = 0u; j < sim.count; j++) {
        if (j == me) {
            continue;
        }
        let d = p - positions[j % arrayLength(&positions)].xyz;
        let r2 = dot(d, d);
        if (r2 >= sim.h2) {
            continue;
        }
        let t = sim.h2 - r2;
        rho += sim.mass * sim.poly6 * t * t * t;
    }
    densities[me] = rho;
}
