// divlab-profile: --dispatch 4 --len bins=64
// A histogram in two levels: workgroup-local atomic bins, then one global atomicAdd per bin.
// Each invocation walks `items_per_thread` elements (a uniform field) with a stride.
struct HistParams {
    count: u32,
    items_per_thread: u32,
    bin_shift: u32,
}

const WG: u32 = 64u;
const BINS: u32 = 64u;

@group(0) @binding(0) var<uniform> params: HistParams;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> bins: array<atomic<u32>>;

var<workgroup> local_bins: array<atomic<u32>, BINS>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(workgroup_id) wid: vec3<u32>) {
    atomicStore(&local_bins[lid.x], 0u);
    workgroupBarrier();
    let n = min(params.count, arrayLength(&keys));
    var idx = wid.x * WG * params.items_per_thread + lid.x;
    for (var k = 0u; k < params.items_per_thread; k++) {
        if (idx < n) {
            let bin = (keys[idx] >> (params.bin_shift & 31u)) % BINS;
            atomicAdd(&local_bins[bin], 1u);
        }
        idx += WG;
    }
    workgroupBarrier();
    let c = atomicLoad(&local_bins[lid.x]);
    if (c > 0u) {
        atomicAdd(&bins[lid.x], c);
    }
}
