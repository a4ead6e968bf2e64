// divlab-profile: --dispatch 4
// divlab-profile-expect: exit 2
// A typo carried over from older WGSL: struct members separated by semicolons.
struct Params {
    num: u32;
    bit: u32;
};

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> keys: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < params.num && gid.x < arrayLength(&keys)) {
        keys[gid.x] = (keys[gid.x] >> params.bit) & 1u;
    }
}
