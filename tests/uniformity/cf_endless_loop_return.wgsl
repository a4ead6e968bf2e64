// A function that ends in a loop only `return` leaves: valid WGSL (nothing runs past the
// loop) that naga 30 rejects. Its result depends on the invocation's own data, so the
// barrier under a condition on it is not in uniform control flow.
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

fn first_set(bits: u32) -> u32 {
    var i = 0u;
    loop {
        if ((bits >> i) & 1u) == 1u || i == 31u { return i; }
        i += 1u;
    }
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let n = first_set(data[lid]);
    if n > 3u {
        workgroupBarrier();
    }
    data[lid] = n;
}
