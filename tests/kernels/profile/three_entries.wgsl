// divlab-profile: --entry step --dispatch 2 --buffer cells=iota
// Three passes over one buffer, as simulations split their work: clear, step, reduce. They
// share the bindings and the helper `wrap`; only `step` calls `bump`.

@group(0) @binding(0) var<storage, read_write> cells: array<u32>;
@group(0) @binding(1) var<storage, read_write> total: atomic<u32>;

fn wrap(i: u32) -> u32 {
    return i % arrayLength(&cells);
}

fn bump(v: u32) -> u32 {
    if (v % 2u == 0u) { // bump: even
        return v / 2u; // bump: half
    }
    return 3u * v + 1u; // bump: odd
}

@compute @workgroup_size(64)
fn clear(@builtin(global_invocation_id) gid: vec3<u32>) {
    cells[wrap(gid.x)] = 0u; // clear: store
    if (gid.x == 0u) { // clear: first
        atomicStore(&total, 0u); // clear: reset
    }
}

@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = wrap(gid.x); // step: index
    if (gid.x % 4u < 2u) { // step: branch
        cells[i] = bump(cells[i]); // step: then
    }
}

@compute @workgroup_size(64)
fn reduce(@builtin(local_invocation_index) li: u32,
          @builtin(workgroup_id) wid: vec3<u32>) {
    if (li == 0u) { // reduce: leader
        var s = 0u;
        for (var k = 0u; k < 64u; k++) { // reduce: sum
            s += cells[wrap(wid.x * 64u + k)]; // reduce: add
        }
        atomicAdd(&total, s);
    }
}
