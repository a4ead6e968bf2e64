// divlab-profile: --entry simulate --dispatch 2 --len particles=128
// One module holding a particle system's compute step and the vertex and fragment shaders that
// draw it, as samples often keep them together; only the compute entry point is profiled.
struct Particle {
    pos: vec2<f32>,
    vel: vec2<f32>,
}

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) speed: f32,
}

@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;

@compute @workgroup_size(64)
fn simulate(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&particles)) {
        return;
    }
    var p = particles[i];
    p.pos += p.vel * 0.01;
    if (abs(p.pos.x) > 1.0) {
        p.vel.x = -p.vel.x;
    }
    if (abs(p.pos.y) > 1.0) {
        p.vel.y = -p.vel.y;
    }
    particles[i] = p;
}

@vertex
fn vs_main(@location(0) pos: vec2<f32>, @location(1) vel: vec2<f32>) -> VertexOut {
    var out: VertexOut;
    out.position = vec4<f32>(pos, 0.0, 1.0);
    out.speed = length(vel);
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    return vec4<f32>(in.speed, 0.5, 1.0 - in.speed, 1.0);
}
