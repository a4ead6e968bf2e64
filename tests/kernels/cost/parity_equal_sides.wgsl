// divlab-profile: --dispatch 64
// Odd and even lanes take different sides of equal work (a loop of FMAs with the same trip
// count). Diverged, a subgroup runs both sides; following its first lane, one: the saving is one
// side's share of the kernel, about half.
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    var x = data[gid.x];
    if (gid.x % 2u == 0u) { // the branch
        for (var i = 0u; i < 768u; i++) {
            x = fma(x, 0.999, 0.25);
        }
    } else {
        for (var i = 0u; i < 768u; i++) {
            x = fma(x, 1.001, -0.25);
        }
    }
    data[gid.x] = x;
}
