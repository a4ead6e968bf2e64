// divlab-profile: --entry scan_blocks --dispatch 2
// divlab-profile: --entry add_offsets --dispatch 4 --len data=256 --len block_sums=2
// A work-efficient exclusive scan (Blelloch) in two entry points: scan_blocks scans each block
// of 2*WG elements and writes its total; add_offsets adds the scanned block totals back.
const WG: u32 = 64u;
const BLOCK: u32 = 128u;

@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> block_sums: array<u32>;

var<workgroup> temp: array<u32, BLOCK>;

@compute @workgroup_size(WG)
fn scan_blocks(@builtin(local_invocation_id) lid: vec3<u32>,
               @builtin(workgroup_id) wid: vec3<u32>) {
    let base = wid.x * BLOCK;
    let n = arrayLength(&data);
    let a = lid.x;
    let b = lid.x + WG;
    temp[a] = select(0u, data[min(base + a, n - 1u)] & 0xffu, base + a < n);
    temp[b] = select(0u, data[min(base + b, n - 1u)] & 0xffu, base + b < n);
    var offset = 1u;
    for (var d = BLOCK >> 1u; d > 0u; d = d >> 1u) {
        workgroupBarrier();
        if (lid.x < d) {
            let ai = offset * (2u * lid.x + 1u) - 1u;
            let bi = offset * (2u * lid.x + 2u) - 1u;
            temp[bi] += temp[ai];
        }
        offset = offset * 2u;
    }
    if (lid.x == 0u) {
        if (wid.x < arrayLength(&block_sums)) {
            block_sums[wid.x] = temp[BLOCK - 1u];
        }
        temp[BLOCK - 1u] = 0u;
    }
    for (var d = 1u; d < BLOCK; d = d * 2u) {
        offset = offset >> 1u;
        workgroupBarrier();
        if (lid.x < d) {
            let ai = offset * (2u * lid.x + 1u) - 1u;
            let bi = offset * (2u * lid.x + 2u) - 1u;
            let t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    workgroupBarrier();
    if (base + a < n) {
        data[base + a] = temp[a];
    }
    if (base + b < n) {
        data[base + b] = temp[b];
    }
}

@compute @workgroup_size(WG)
fn add_offsets(@builtin(global_invocation_id) gid: vec3<u32>,
               @builtin(workgroup_id) wid: vec3<u32>) {
    let block = gid.x / BLOCK;
    if (gid.x >= arrayLength(&data) || block == 0u || block >= arrayLength(&block_sums)) {
        return;
    }
    data[gid.x] += block_sums[block];
}
