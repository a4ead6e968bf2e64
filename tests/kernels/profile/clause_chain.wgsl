// divlab-profile: --dispatch 2
// Conditions of several clauses: naga makes an `if` of each `&&` and `||`, on the condition's
// line, so each line has one branch row per operator and one for the whole condition, each
// testing the chain up to one clause.
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    var v = 0u;
    if (i % 2u == 0u && i % 4u == 0u && i % 16u == 0u) { // and chain
        v = 1u;
    }
    if (i < 8u || i >= 120u) { // or chain
        v += 2u;
    }
    out[i] = v;
}
