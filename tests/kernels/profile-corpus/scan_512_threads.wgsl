// divlab-profile: --dispatch 2
// A block scan with 512 threads per workgroup, as splatting renderers size theirs: more than
// WebGPU's default limit of 256 invocations per workgroup, which most native adapters exceed.
const THREADS: u32 = 512u;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

var<workgroup> bucket: array<u32, THREADS>;

@compute @workgroup_size(THREADS)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    bucket[li] = select(0u, input[gid.x] & 0xffu, gid.x < arrayLength(&input));
    for (var t = 1u; t < THREADS; t = t * 2u) {
        workgroupBarrier();
        var v = bucket[li];
        if (li >= t) {
            v += bucket[li - t];
        }
        workgroupBarrier();
        bucket[li] = v;
    }
    if (gid.x < arrayLength(&output)) {
        output[gid.x] = bucket[li];
    }
}
