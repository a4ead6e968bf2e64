// divlab-profile: --dispatch 4
// divlab-profile-expect: exit 2
// Pre-2022 WGSL attribute syntax, as old tutorials still show it.
[[group(0), binding(0)]] var<storage, read_write> data: array<f32>;

[[stage(compute), workgroup_size(64)]]
fn main([[builtin(global_invocation_id)]] gid: vec3<u32>) {
    data[gid.x] = data[gid.x] + 1.0;
}
