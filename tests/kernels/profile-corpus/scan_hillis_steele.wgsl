// divlab-profile: --dispatch 4
// An inclusive prefix sum of one workgroup's block in workgroup memory (Hillis-Steele): log2(N)
// rounds, each adding the value `offset` places back, with barriers between reads and writes.
const WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

var<workgroup> buf: array<u32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = arrayLength(&input);
    var x = 0u;
    if (gid.x < n) {
        x = input[gid.x] & 0xffu;
    }
    buf[lid.x] = x;
    for (var offset = 1u; offset < WG; offset = offset * 2u) {
        workgroupBarrier();
        var t = buf[lid.x];
        if (lid.x >= offset) {
            t = t + buf[lid.x - offset];
        }
        workgroupBarrier();
        buf[lid.x] = t;
    }
    if (gid.x < n) {
        output[gid.x] = buf[lid.x];
    }
}
