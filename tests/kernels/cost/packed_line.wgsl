// divlab-profile: --dispatch 4
// Three `if`s share one line, as minified code has them: no variant of one can be written, so
// they are not measured, and they must not take --cost-top's slots. Each leaves 8 lane slots
// idle per subgroup (4 lanes on each side); the branch below leaves 7 (one lane of 8 takes
// it), so it ranks after them, and with --cost-top 1 it is still the one measured.
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) { var x = data[gid.x];
    if (gid.x % 2u == 0u) { x = x * 3u; } else { x = x + 1u; } if (gid.x % 4u < 2u) { x = x ^ 5u; } else { x = x + 2u; } if ((gid.x / 2u) % 2u == 0u) { x = x * 7u; } else { x = x ^ 9u; }
    if (gid.x % 8u == 3u) { // the branch
        x = x + 11u;
    }
    data[gid.x] = x;
}
