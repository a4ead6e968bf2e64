// divlab-profile: --dispatch 2
// A renderer's compute pass that uses all four bind groups WebGPU guarantees (frame, view,
// material, object): divlab needs a fifth for its counters, which many adapters have.
struct Frame { time: f32, dt: f32 }
struct View { scale: vec2<f32>, offset: vec2<f32> }

@group(0) @binding(0) var<uniform> frame: Frame;
@group(1) @binding(0) var<uniform> view: View;
@group(2) @binding(0) var<storage, read> material_ids: array<u32>;
@group(3) @binding(0) var<storage, read_write> positions: array<vec2<f32>>;

@compute @workgroup_size(64)
fn animate(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&positions) || i >= arrayLength(&material_ids)) {
        return;
    }
    var p = positions[i];
    switch material_ids[i] % 3u {
        case 0u: {
            p += vec2<f32>(sin(frame.time), cos(frame.time)) * frame.dt;
        }
        case 1u: {
            p = p * view.scale + view.offset;
        }
        default: {
            p = -p;
        }
    }
    positions[i] = p;
}
