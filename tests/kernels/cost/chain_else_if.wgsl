// divlab-profile: --dispatch 4
// Chains where a value computed before the statement would be computed in the wrong place: an
// `else if`'s condition, computed only where the `if` before it failed, and a `break if`'s,
// computed at the end of every trip. The timed variants of their clauses compute the chain
// there: inside the `else`, and in the `continuing` block (a comment inside a clause is no
// part of it). Each lane checks what it got against a closed form with no `&&` or `||` in it:
// when the kernel runs as written, no lane reaches the line that says it went wrong.
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let i = gid.x;
    var x = f32(i % 7u);
    var kind = 0u;
    if (i % 4u == 0u) {
        kind = 1u;
    } else if (i % 2u == 1u /* odd */ && i % 3u != 0u) { // the else if
        kind = 2u;
    } else {
        kind = 3u;
    }
    var n = 0u;
    loop {
        x = fma(x, 0.5, 1.0);
        n += 1u;
        continuing {
            break if n >= i % 8u || x > 1.0e30; // the break if
        }
    }
    let want = select(select(3u, 2u, (i % 2u) * (i % 3u) != 0u), 1u, i % 4u == 0u);
    let wrong = u32(kind != want) + u32(n != max(i % 8u, 1u));
    if (wrong != 0u) {
        data[i] = -1.0; // wrong
    } else {
        data[i] = x + f32(kind);
    }
}
