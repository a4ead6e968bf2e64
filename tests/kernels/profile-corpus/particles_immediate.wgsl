// divlab-profile: --dispatch 4 --len particles=256
// A particle update with its per-frame constants in push constants (`var<immediate>`): gravity,
// a time step and the live count. Dead particles (age past their life) respawn at the origin.
struct Frame {
    dt: f32,
    gravity: f32,
    live: u32,
}

struct Particle {
    pos: vec3<f32>,
    age: f32,
    vel: vec3<f32>,
    life: f32,
}

var<immediate> frame: Frame;
@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;

@compute @workgroup_size(64)
fn update(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= frame.live || i >= arrayLength(&particles)) {
        return;
    }
    var p = particles[i];
    p.age += frame.dt;
    if (p.age > p.life) {
        p.age = 0.0;
        p.pos = vec3<f32>(0.0);
        p.vel = vec3<f32>(0.0, 1.0, 0.0);
    } else {
        p.vel.y -= frame.gravity * frame.dt;
        p.pos += p.vel * frame.dt;
        if (p.pos.y < 0.0) {
            p.pos.y = -p.pos.y;
            p.vel.y = -0.5 * p.vel.y;
        }
    }
    particles[i] = p;
}
