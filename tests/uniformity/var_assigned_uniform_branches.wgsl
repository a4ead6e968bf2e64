// Assignments of constants in both branches of a uniform if leave the variable uniform.
@group(0) @binding(0) var<uniform> mode: u32;
@compute @workgroup_size(64)
fn main() {
    var x: u32;
    if mode == 0u {
        x = 1u;
    } else {
        x = 2u;
    }
    let y = x;
    if y == 1u {
        workgroupBarrier();
    }
}
