// divlab-profile:
// The smallest kernel people write: add a constant to every element of a buffer, guarded by its
// length.
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= arrayLength(&data)) {
        return;
    }
    data[gid.x] = data[gid.x] + 100u;
}
