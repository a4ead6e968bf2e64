// divlab-profile: --dispatch 2 --len particles_in=128 --len particles_out=128
// Flocking: every boid looks at every other boid (a loop bounded by the array's length) and
// applies cohesion, separation and alignment within per-rule distances from a uniform.
struct Boid {
    pos: vec2<f32>,
    vel: vec2<f32>,
}

struct SimParams {
    dt: f32,
    cohesion_dist: f32,
    separation_dist: f32,
    alignment_dist: f32,
    cohesion_scale: f32,
    separation_scale: f32,
    alignment_scale: f32,
}

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> particles_in: array<Boid>;
@group(0) @binding(2) var<storage, read_write> particles_out: array<Boid>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let me = gid.x;
    let total = arrayLength(&particles_in);
    if (me >= total) {
        return;
    }
    var pos = particles_in[me].pos;
    var vel = particles_in[me].vel;
    var centre = vec2<f32>(0.0);
    var away = vec2<f32>(0.0);
    var heading = vec2<f32>(0.0);
    var n_centre = 0u;
    var n_heading = 0u;
    for (var i = 0u; i < total; i++) {
        if (i == me) {
            continue;
        }
        let other = particles_in[i];
        let d = distance(other.pos, pos);
        if (d < sim.cohesion_dist) {
            centre += other.pos;
            n_centre++;
        }
        if (d < sim.separation_dist) {
            away -= other.pos - pos;
        }
        if (d < sim.alignment_dist) {
            heading += other.vel;
            n_heading++;
        }
    }
    if (n_centre > 0u) {
        centre = centre / f32(n_centre) - pos;
    }
    if (n_heading > 0u) {
        heading = heading / f32(n_heading);
    }
    vel += centre * sim.cohesion_scale + away * sim.separation_scale + heading * sim.alignment_scale;
    vel = normalize(vel) * clamp(length(vel), 0.0, 0.1);
    pos += vel * sim.dt;
    if (pos.x < -1.0) { pos.x = 1.0; }
    if (pos.x > 1.0) { pos.x = -1.0; }
    if (pos.y < -1.0) { pos.y = 1.0; }
    if (pos.y > 1.0) { pos.y = -1.0; }
    particles_out[me] = Boid(pos, vel);
}
