// divlab-profile: --dispatch 2
// Bitonic sort of one workgroup's block in workgroup memory: for each block size k and each
// distance j, the lane whose partner lies above it compares and swaps in k's direction.
const N: u32 = 128u;

@group(0) @binding(0) var<storage, read_write> values: array<u32>;

var<workgroup> local_data: array<u32, N>;

@compute @workgroup_size(N)
fn sort_block(@builtin(global_invocation_id) gid: vec3<u32>,
              @builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.x;
    local_data[i] = values[gid.x];
    workgroupBarrier();
    for (var k = 2u; k <= N; k <<= 1u) {
        for (var j = k >> 1u; j > 0u; j >>= 1u) {
            let partner = i ^ j;
            if (partner > i) {
                let a = local_data[i];
                let b = local_data[partner];
                let ascending = (i & k) == 0u;
                if ((a > b) == ascending) {
                    local_data[i] = b;
                    local_data[partner] = a;
                }
            }
            workgroupBarrier();
        }
    }
    values[gid.x] = local_data[i];
}
