// divlab-profile: --dispatch 4
// Overrides that size the workgroup and its workgroup array (a 2-bit radix pass keeps two
// counters per lane), as sort libraries write them; both have defaults here.
override THREADS: u32 = 64u;
override CURRENT_BIT: u32 = 0u;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> local_ranks: array<u32>;

var<workgroup> prefix: array<u32, 2 * THREADS>;

@compute @workgroup_size(THREADS)
fn rank(@builtin(local_invocation_index) tid: u32,
        @builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&input);
    let v = select(0u, input[gid.x], gid.x < n);
    let digit = (v >> CURRENT_BIT) & 1u;
    prefix[tid] = 1u - digit;
    prefix[THREADS + tid] = digit;
    workgroupBarrier();
    // Two inclusive scans at once, Hillis-Steele, rounds bounded by log2(THREADS).
    for (var offset = 1u; offset < THREADS; offset <<= 1u) {
        var a = prefix[tid];
        var b = prefix[THREADS + tid];
        if (tid >= offset) {
            a += prefix[tid - offset];
            b += prefix[THREADS + tid - offset];
        }
        workgroupBarrier();
        prefix[tid] = a;
        prefix[THREADS + tid] = b;
        workgroupBarrier();
    }
    if (gid.x < n && gid.x < arrayLength(&local_ranks)) {
        let zeros = prefix[THREADS - 1u];
        local_ranks[gid.x] = select(prefix[tid] - 1u, zeros + prefix[THREADS + tid] - 1u, digit == 1u);
    }
}
