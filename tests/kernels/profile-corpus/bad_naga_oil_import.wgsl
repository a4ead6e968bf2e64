// divlab-profile: --dispatch 4
// divlab-profile-expect: exit 2
// A naga_oil-style module import with a path-qualified constant: the composer resolves it, plain
// WGSL does not.
#import sorting

@group(0) @binding(0) var<storage, read_write> keys: array<u32>;

@compute @workgroup_size(sorting::WG, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&keys)) {
        keys[gid.x] = keys[gid.x] >> sorting::SHIFT;
    }
}
