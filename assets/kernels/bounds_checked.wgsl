// An element-wise kernel with a bounds check: the dispatch rounds the element count up to whole
// workgroups, so the lanes past the end return at once. Only the subgroups that straddle or pass
// the end diverge there.
//
// divlab profile assets/kernels/bounds_checked.wgsl --dispatch 2 --len output=100 --len input=100

@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&output)) {
        return;
    }
    output[i] = input[i] * 2.0 + 1.0;
}
