// divlab-profile: --dispatch 2 --buffer data=iota --len data=128 --override SCALE=3
// A kernel with an override, a runtime-sized buffer and a loop bounded by its input, so that
// every part of the request shows in the document.
override SCALE: u32 = 1u;

@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0u;
    let trips = data[gid.x] % 4u; // at most 3
    for (var i = 0u; i < trips; i++) { // loop
        acc += i * SCALE; // body
    }
    data[gid.x] = acc;
}
