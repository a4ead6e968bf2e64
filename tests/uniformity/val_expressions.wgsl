// Value uniformity follows data dependencies, not values: lid * 0u is still non-uniform.
struct P { n: u32, m: u32 }
@group(0) @binding(0) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>) {
    let a = 1u + 2u * p.n;
    let b = lid * 0u;
    let c = select(0u, 1u, lid > 3u);
    let d = select(p.n, p.m, wid.x > 3u);
    let e = vec2<u32>(wid.x, lid);
    let f = e.x;
    let g = max(a, d);
    let h = f32(g) * 0.5;
}
