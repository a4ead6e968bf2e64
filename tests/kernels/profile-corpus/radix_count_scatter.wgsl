// divlab-profile: --entry radix_count --dispatch 4 --buffer params=values:256,0
// divlab-profile: --entry radix_scatter --dispatch 4 --buffer params=values:256,0 --buffer counts=values:130,126
// One bit of a radix sort in two entry points that share bindings: radix_count ranks each key
// among those with the same bit (atomics), radix_scatter moves it to its place.
struct Params {
    num: u32,
    bit: u32,
}

@group(0) @binding(0) var<storage, read> keys_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> ranks: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>, 2>;
@group(0) @binding(3) var<uniform> params: Params;
@group(0) @binding(4) var<storage, read_write> keys_out: array<u32>;

@compute @workgroup_size(64)
fn radix_count(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.num || i >= arrayLength(&keys_in)) {
        return;
    }
    let b = (keys_in[i] >> (params.bit & 31u)) & 1u;
    if (b == 0u) {
        ranks[i] = atomicAdd(&counts[0], 1u);
    } else {
        ranks[i] = atomicAdd(&counts[1], 1u);
    }
}

@compute @workgroup_size(64)
fn radix_scatter(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.num || i >= arrayLength(&keys_in)) {
        return;
    }
    let key = keys_in[i];
    var dst = ranks[i];
    if (((key >> (params.bit & 31u)) & 1u) == 1u) {
        dst += atomicLoad(&counts[0]);
    }
    if (dst < arrayLength(&keys_out)) {
        keys_out[dst] = key;
    }
}
