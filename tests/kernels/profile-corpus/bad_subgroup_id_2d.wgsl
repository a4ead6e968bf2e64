// divlab-profile: --dispatch 2,2
// divlab-profile-expect: exit 2
// A kernel's own mistake: subgroup_invocation_id in an 8x8 workgroup, which WGSL (naga) forbids
// for multi-dimensional workgroups; the error is the user's, not divlab's.
enable subgroups;

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(local_invocation_index) li: u32,
        @builtin(subgroup_invocation_id) lane: u32) {
    if (li < arrayLength(&out)) {
        out[li] = lane;
    }
}
