// divlab-profile: --dispatch 4 --buffer stats=zeros
// Ray-box intersection statistics: a struct of atomics counts hits, misses and the nearest hit
// (atomicMin on the distance's bits); rays come from a storage array of structs.
struct Ray {
    origin: vec3<f32>,
    t_max: f32,
    dir: vec3<f32>,
    pad: f32,
}

struct Stats {
    hits: atomic<u32>,
    misses: atomic<u32>,
    nearest_bits: atomic<u32>,
}

@group(0) @binding(0) var<storage, read> rays: array<Ray>;
@group(0) @binding(1) var<storage, read_write> stats: Stats;

fn hit_box(r: Ray) -> f32 {
    let inv = 1.0 / r.dir;
    let t0 = (vec3<f32>(-1.0) - r.origin) * inv;
    let t1 = (vec3<f32>(1.0) - r.origin) * inv;
    let near = max(max(min(t0.x, t1.x), min(t0.y, t1.y)), min(t0.z, t1.z));
    let far = min(min(max(t0.x, t1.x), max(t0.y, t1.y)), max(t0.z, t1.z));
    if (near > far || far < 0.0 || near > r.t_max) {
        return -1.0;
    }
    return max(near, 0.0);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= arrayLength(&rays)) {
        return;
    }
    let t = hit_box(rays[gid.x]);
    if (t >= 0.0) {
        atomicAdd(&stats.hits, 1u);
        atomicMin(&stats.nearest_bits, bitcast<u32>(t));
    } else {
        atomicAdd(&stats.misses, 1u);
    }
}
