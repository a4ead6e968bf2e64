// A scalar `let` splatted into a vector inside a branch (`v / s`): naga gives the splat the
// `let`'s span, but the `let` runs in uniform control flow, and only the branch's lines do not.
@group(0) @binding(0) var<storage, read_write> data: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let s = f32(lid) + 1.0;
    if lid % 2u == 0u {
        data[lid] = data[lid] / s;
    }
    workgroupBarrier();
}
