// divlab-profile: --dispatch 4
// naga makes an `if` of each `&&`: on the marked `if`'s line, one that tests `i % 2u == 0u`
// and evaluates the next clause on its `then` side, and the `if` of the whole condition, whose
// side is the loop. The clause's row is not the `if`'s body: it gets no variant and takes no
// --cost-top slot, though it ranks above the `if`'s own row by idle lane slots, and with
// --cost-top 1 the `if` is the one measured. The chain in the `let` is in no `if`'s condition.
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    var x = data[i];
    let marked = i % 2u == 1u && i % 3u == 0u && i % 5u != 0u;
    if (i % 2u == 0u && i % 3u != 0u) { // the branch
        for (var k = 0u; k < 32u; k++) {
            x = fma(x, 0.999, 0.5);
        }
    }
    data[i] = select(x, x + 1.0, marked);
}
