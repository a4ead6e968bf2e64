// divlab-profile: --dispatch 4
// An ML element-wise kernel in half precision, as web LLM runtimes write them: GELU on vec4<f16>
// with a select for large inputs, behind `enable f16`.
enable f16;

@group(0) @binding(0) var<storage, read> x: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<f16>>;

const SQRT_2_OVER_PI: f16 = 0.7978845608h;

@compute @workgroup_size(64)
fn gelu(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&x) || i >= arrayLength(&y)) {
        return;
    }
    let v = x[i];
    let inner = SQRT_2_OVER_PI * (v + 0.044715h * v * v * v);
    let g = 0.5h * v * (vec4<f16>(1.0h) + tanh(clamp(inner, vec4<f16>(-8.0h), vec4<f16>(8.0h))));
    y[i] = select(g, v, v > vec4<f16>(10.0h));
}
