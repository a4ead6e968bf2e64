// divlab-profile: --dispatch 4,4,2 --len vertices=32
// A mesh generator in the pattern of engine examples: @workgroup_size(1) with a 3-D dispatch,
// one invocation per vertex of a height-field grid, layers stacked along z.
struct Vertex {
    pos: vec4<f32>,
    normal: vec4<f32>,
}

@group(0) @binding(0) var<storage, read_write> vertices: array<Vertex>;

fn height(x: f32, y: f32) -> f32 {
    return sin(x * 1.3) * cos(y * 0.7) * 0.5;
}

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let i = id.x + n.x * (id.y + n.y * id.z);
    if (i >= arrayLength(&vertices)) {
        return;
    }
    let x = f32(id.x);
    let y = f32(id.y);
    let h = height(x, y) + f32(id.z);
    let dx = height(x + 0.01, y) - height(x - 0.01, y);
    let dy = height(x, y + 0.01) - height(x, y - 0.01);
    vertices[i] = Vertex(vec4<f32>(x, h, y, 1.0), vec4<f32>(normalize(vec3<f32>(-dx, 0.02, -dy)), 0.0));
}
