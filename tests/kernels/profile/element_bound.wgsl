// divlab-profile: --dispatch 1 --buffer trips=iota
// Each invocation loops as many times as its own element of `trips` says, as a
// work-list or a sparse row does: lane i runs i trips with `iota`.
@group(0) @binding(0) var<storage, read> trips: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = trips[gid.x];
    var total = 0u;
    for (var k = 0u; k < n; k++) { // loop
        total += k; // body
    }
    out[gid.x] = total; // store
}
