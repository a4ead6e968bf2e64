// divlab-profile: --dispatch 4
// divlab-profile-expect: exit 2
// Overrides without defaults, set by the host at pipeline creation; run without --override,
// the workgroup size has no value.
override WORKGROUP_SIZE: u32;
override ELEMENT_COUNT: u32;

@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < ELEMENT_COUNT && gid.x < arrayLength(&data)) {
        data[gid.x] += 1u;
    }
}
