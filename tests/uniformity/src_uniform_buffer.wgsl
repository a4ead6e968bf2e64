// A load from a uniform buffer is uniform.
struct P { n: u32, k: u32 }
@group(0) @binding(0) var<uniform> p: P;
@compute @workgroup_size(64)
fn main() {
    let n = p.n;
    if n > 4u {
        workgroupBarrier();
    }
}
