// divlab-profile: --dispatch 4 --buffer params=values:100,3
// Push constants (`var<immediate>`): a limit and a stride set with the dispatch.
struct Params {
    limit: u32,
    stride: u32,
}

var<immediate> params: Params;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < params.limit) {
        out[gid.x] = gid.x * params.stride; // below
    }
}
