// divlab-profile: --dispatch 4 --len keys=256 --buffer key_count=values:200
// A count read once per workgroup and shared with workgroupUniformLoad, then a grid-stride loop
// whose bound the uniformity analysis can trust; atomicMax and atomicCompareExchangeWeak on the
// results.
@group(0) @binding(0) var<storage, read> key_count: array<u32>;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> max_key: atomic<u32>;
@group(0) @binding(3) var<storage, read_write> first_odd: atomic<u32>;

var<workgroup> count_wg: u32;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    if (li == 0u) {
        count_wg = min(key_count[0], arrayLength(&keys));
    }
    let n = workgroupUniformLoad(&count_wg);
    var best = 0u;
    for (var i = wid.x * 64u + li; i < n; i += groups.x * 64u) {
        let k = keys[i];
        best = max(best, k);
        if ((k & 1u) == 1u) {
            // Keep the smallest odd key (CAS loop, bounded by retries).
            var old = atomicLoad(&first_odd);
            for (var tries = 0u; tries < 16u && k < old; tries++) {
                let r = atomicCompareExchangeWeak(&first_odd, old, k);
                if (r.exchanged) {
                    break;
                }
                old = r.old_value;
            }
        }
    }
    atomicMax(&max_key, best);
}
