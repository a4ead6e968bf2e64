// Diagnostic(off, derivative_uniformity) removes the requirement.
diagnostic(off, derivative_uniformity);
@fragment
fn main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    var d = 0.0;
    if pos.x > 0.5 {
        d = dpdx(pos.y);
    }
    return vec4<f32>(d);
}
