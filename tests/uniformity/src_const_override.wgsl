// Constants and overrides are uniform.
override N: u32 = 4u;
const K: u32 = 3u;
@compute @workgroup_size(64)
fn main() {
    let n = N * K;
    for (var i = 0u; i < n; i++) {
        workgroupBarrier();
    }
}
