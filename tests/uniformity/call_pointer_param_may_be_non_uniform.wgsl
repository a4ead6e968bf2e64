// A function storing a read_write storage value through a pointer gets PointerParameterMayBeNonUniform.
@group(0) @binding(0) var<storage, read_write> state: u32;
fn fetch(p: ptr<function, u32>) {
    *p = state;
}
@compute @workgroup_size(64)
fn main() {
    var x = 0u;
    fetch(&x);
    let v = x;
    if v == 0u {
        workgroupBarrier();
    }
}
