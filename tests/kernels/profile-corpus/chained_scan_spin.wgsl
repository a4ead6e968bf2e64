// divlab-profile: --dispatch 8 --len flags=8 --len totals=8 --buffer flags=zeros --buffer totals=zeros
// divlab-profile: --dispatch 8 --len flags=8 --len totals=8 --buffer flags=zeros --buffer totals=zeros --override REVERSED=1
// A chained (single-pass) scan: each workgroup sums its block, then spins until the workgroup
// before it has published its inclusive total, adds it and publishes its own. The spin loop is
// bounded only by another workgroup's progress, as in decoupled look-back scans. REVERSED chains
// the workgroups the other way, so each waits for one that may be scheduled after it: where
// workgroups do not all run at once, that never ends, and the loop cap must end it.
const WG: u32 = 64u;
override REVERSED: bool = false;

@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> totals: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> block_prefix: array<u32>;

var<workgroup> sums: array<u32, WG>;
var<workgroup> before: u32;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wid: vec3<u32>) {
    sums[li] = select(0u, values[gid.x] & 0xfu, gid.x < arrayLength(&values));
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (li < s) {
            sums[li] += sums[li + s];
        }
        workgroupBarrier();
    }
    let me = select(wid.x, arrayLength(&flags) - 1u - wid.x, REVERSED);
    if (li == 0u) {
        var prefix = 0u;
        if (me > 0u && me - 1u < arrayLength(&flags)) {
            loop {
                if (atomicLoad(&flags[me - 1u]) != 0u) {
                    break;
                }
            }
            prefix = atomicLoad(&totals[me - 1u]);
        }
        before = prefix;
        if (me < arrayLength(&flags) && me < arrayLength(&totals)) {
            atomicStore(&totals[me], prefix + sums[0]);
            atomicStore(&flags[me], 1u);
        }
    }
    workgroupBarrier();
    if (li == 0u && me < arrayLength(&block_prefix)) {
        block_prefix[me] = before;
    }
}
