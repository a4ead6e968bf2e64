// Discard demotes the invocation to a helper; it does not make control flow non-uniform.
@fragment
fn main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    if pos.x > 0.5 {
        discard;
    }
    let d = dpdx(pos.y);
    return vec4<f32>(d);
}
