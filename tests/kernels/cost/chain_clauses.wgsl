// divlab-profile: --dispatch 4
// naga makes an `if` of each `&&`, whose `then` side evaluates the next clause: the lanes of a
// subgroup agree when every one evaluates it, as `&` would, and the results stay as they were.
// On the marked `if`'s line, one row tests `i % 2u == 0u` and evaluates `i % 3u != 0u`, and
// the row of the whole condition guards the loop (a first-lane variant, as any `if`). In the
// `let`s, no `if` holds the chains. `rare`'s next clause is 256 dependent multiply-adds that
// one lane in 64 needs: short-circuited, only the subgroups that hold such a lane run them;
// evaluated in every lane, every subgroup does, many times the work, so the short-circuit pays.
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

fn settle(x: f32) -> f32 {
    var y = x;
    for (var k = 0u; k < 256u; k++) {
        y = fma(y, 0.999, 0.5);
    }
    return y;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    var x = data[i];
    let marked = (i % 2u == 1u) && (i % 3u == 0u) && i % 5u != 0u;
    let rare = (i % 64u == 0u) && (settle(x) > 1.0);
    if (i % 2u == 0u && i % 3u != 0u) { // the branch
        for (var k = 0u; k < 32u; k++) {
            x = fma(x, 0.999, 0.5);
        }
    }
    data[i] = select(select(x, x + 1.0, marked), 0.0, rare);
}
