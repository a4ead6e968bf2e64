// A full assignment after partial ones makes the composite uniform again.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var v: vec2<u32>;
    v.x = lid;
    v = vec2<u32>(1u, 2u);
    let y = v.y;
    if y == 2u {
        workgroupBarrier();
    }
}
