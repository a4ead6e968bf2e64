// lavapipe from Mesa 22.3 corrupts its heap compiling this kernel (valgrind: a use after free in
// vkCreateComputePipelines): an `if` on a value read from the last of eight separate uniform
// bindings, with exp() on both sides. divlab must end such a run with its fault message and
// exit 3, never with a bare signal (tests/main/fault.rs).

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> scale: f32;
@group(0) @binding(2) var<uniform> gain: f32;
@group(0) @binding(3) var<uniform> bias: f32;
@group(0) @binding(4) var<uniform> k0: f32;
@group(0) @binding(5) var<uniform> k1: f32;
@group(0) @binding(6) var<uniform> k2: f32;
@group(0) @binding(7) var<uniform> k3: f32;
@group(0) @binding(8) var<uniform> mode: f32;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var value = exp(f32(id.x) * scale) * gain;
    if (mode == 1.0 || mode == 3.0) {
        value += exp(f32(id.y) * bias);
    }
    value *= k0 * k1 * k2 * k3;
    out[id.x + 8u * id.y] = value * mode;
}
