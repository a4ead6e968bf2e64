// A load from a private variable may be non-uniform: it is mutable module-scope state.
var<private> counter: u32;
@compute @workgroup_size(64)
fn main() {
    counter = 3u;
    let c = counter;
    if c == 3u {
        workgroupBarrier();
    }
}
