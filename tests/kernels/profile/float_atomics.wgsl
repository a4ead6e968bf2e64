// divlab-profile: --dispatch 4
// Gradient accumulation with `atomic<f32>`, as splatting and ML backward passes write it: only
// the lanes whose weight passes the threshold add. divlab asks for wgpu's
// SHADER_FLOAT32_ATOMIC where the adapter has it; GL has none, and says so.
@group(0) @binding(0) var<storage, read> weights: array<f32>;
@group(0) @binding(1) var<storage, read_write> gradient: array<atomic<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let w = weights[gid.x];
    if (w > 0.25) {
        atomicAdd(&gradient[gid.x % 16u], w);
    }
}
