// divlab-profile: --dispatch 4 --len bodies=256
// A rigid-body step through a pointer to the element, as kernels name the element they change:
// `let b = &bodies[i];` at entry, reads and compound assignments through it in branches, and a
// scalar step applied to vectors in a loop of sub-steps (naga gives those loads and splats the
// span of the `let` they read; each line still counts where it is written).
struct Body {
    pos: vec2<f32>,
    vel: vec2<f32>,
    mass: f32,
    flags: u32,
}

struct Params {
    dt: f32,
    bound: f32,
    substeps: u32,
    count: u32,
}

@group(0) @binding(0) var<storage, read_write> bodies: array<Body>;
@group(0) @binding(1) var<uniform> params: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= params.count {
        return;
    }
    let b = &bodies[i];
    let h = fract(params.dt) / f32(max(params.substeps, 1u));
    var vel = (*b).vel;
    if (*b).flags % 4u == 0u {
        let sleeping = *b;
        vel = sleeping.vel * 0.5;
    }
    for (var s = 0u; s < min(params.substeps, i % 8u); s++) {
        vel -= h * 9.8;
        vel *= 0.999;
    }
    var pos = (*b).pos + vel * h;
    if abs(pos.x) > params.bound {
        vel.x = -vel.x;
        pos.x = clamp(pos.x, -params.bound, params.bound);
    }
    (*b).pos = pos;
    (*b).vel = vel;
    if (*b).mass <= 0.0 {
        (*b).flags |= 1u;
    }
}
