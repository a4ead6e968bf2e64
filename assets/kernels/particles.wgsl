// One step of a particle update with distance tests: particles inside the attractor are pulled
// to the centre, those near the edge bounce. Which branch a lane takes depends on its own
// particle, so a subgroup diverges wherever its particles straddle a boundary.
//
// divlab profile assets/kernels/particles.wgsl --dispatch 16 --len particles=1024

struct Particle {
    pos: vec2<f32>,
    vel: vec2<f32>,
}

@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&particles)) {
        return;
    }
    var p = particles[i];
    let d = distance(p.pos, vec2<f32>(0.5, 0.5));
    if (d < 0.25) {
        // Inside the attractor: pulled toward the centre.
        p.vel = p.vel + (vec2<f32>(0.5, 0.5) - p.pos) * 0.1;
    } else if (d > 0.45) {
        // Near the edge: bounce back.
        p.vel = -p.vel;
    }
    p.pos = p.pos + p.vel * 0.016;
    particles[i] = p;
}
