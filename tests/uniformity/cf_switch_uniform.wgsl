// A switch on a uniform selector keeps every case uniform.
@group(0) @binding(0) var<uniform> mode: u32;
@compute @workgroup_size(64)
fn main() {
    switch mode {
        case 0u: { workgroupBarrier(); }
        default: { storageBarrier(); }
    }
}
