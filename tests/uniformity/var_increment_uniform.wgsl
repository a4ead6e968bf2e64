// X++ in uniform control flow keeps x uniform.
@compute @workgroup_size(64)
fn main() {
    var x = 1u;
    x++;
    let y = x;
    if y == 2u {
        workgroupBarrier();
    }
}
