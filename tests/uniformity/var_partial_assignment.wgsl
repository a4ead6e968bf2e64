// A partial assignment keeps the previous value: one non-uniform component taints the vector.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var v: vec2<u32>;
    v.x = lid;
    v.y = 0u;
    let y = v.y;
    if y == 0u {
        workgroupBarrier();
    }
}
