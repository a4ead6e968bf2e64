// Unbalanced divergence and run-ahead (seed 001, "What it does to the cost model"): in every
// subgroup the even lanes run a long arithmetic path and the odd lanes a short one. After the
// join the odd lanes chase pointers through a table: memory work that does not depend on the
// long path. Under a reconvergence stack they wait at the join, and the time is the sum of the
// parts; lanes with their own program counters may run ahead and overlap the long path.
// The host times four parameter sets of this one kernel: base (short paths only), long, post
// (post-join work only) and full.
//
// Every loop runs a host-set number of times (kept under caps by the host) and every index is
// in range by construction, so the kernel runs without injected checks.
//
// Without subgroups (wgpu's GL backend, older GPUs) `main_no_sg` splits by the parity of
// local_invocation_index instead: each pair (2i, 2i+1) lies in one subgroup where subgroups are
// runs of consecutive local indices, so both paths still share every subgroup. The host loads
// this file with its SUBGROUPS ONLY regions blanked (src/experiments/scheduling/mod.rs says why).
//
// Keep in sync with src/shaders/scheduling.rs (AheadParams, TABLE_SIZE, FMAS).
// BEGIN SUBGROUPS ONLY
enable subgroups;
// END SUBGROUPS ONLY

// The host sets it to the observed subgroup size (without subgroups, a fixed guess): one
// subgroup per workgroup, and few workgroups, so a GPU has about one subgroup per multiprocessor
// and other subgroups cannot hide one subgroup's wait.
override WORKGROUP_SIZE: u32 = 32u;
// The table has 65536 entries.
const TABLE_MASK: u32 = 65535u;

struct AheadParams {
    // Iterations of 4 dependent FMAs on the long path (even lanes).
    long_iters: u32,
    // The same on the short path (odd lanes).
    short_iters: u32,
    // Dependent table loads after the join.
    post_iters: u32,
    // Lanes with (lane & 1) == post_parity do the post-join work. The host sets 1 (the short
    // lanes); a value the compiler cannot see keeps it from folding the post-join work into the
    // short path, which would remove the join.
    post_parity: u32,
}

@group(0) @binding(0) var<storage, read> params: AheadParams;
// A single-cycle permutation of 0..65536: each load's address is the previous load's value.
@group(0) @binding(1) var<storage, read> table: array<u32>;
@group(0) @binding(2) var<storage, read_write> sink: array<u32>;

// `lane` splits the paths by parity: subgroup_invocation_id, or local_invocation_index.
fn run(gid: vec3<u32>, lane: u32) {
    // Read once: bounds read in a loop condition may be reloaded every trip.
    let long_n = params.long_iters;
    let short_n = params.short_iters;
    let post_n = params.post_iters;
    var a = f32(gid.x & 255u) * 1e-3;
    if (lane & 1u) == 0u {
        for (var i = 0u; i < long_n; i++) {
            a = fma(a, 0.9999, 1e-4); a = fma(a, 0.9999, 1e-4);
            a = fma(a, 0.9999, 1e-4); a = fma(a, 0.9999, 1e-4);
        }
    } else {
        for (var i = 0u; i < short_n; i++) {
            a = fma(a, 0.9998, 2e-4); a = fma(a, 0.9998, 2e-4);
            a = fma(a, 0.9998, 2e-4); a = fma(a, 0.9998, 2e-4);
        }
    }
    // The join. Then the post-join work, independent of the long path.
    var at = (gid.x * 2654435761u) & TABLE_MASK;
    if (lane & 1u) == params.post_parity {
        for (var i = 0u; i < post_n; i++) {
            at = table[at & TABLE_MASK];
        }
    }
    sink[gid.x] = bitcast<u32>(a) ^ at;
}

// BEGIN SUBGROUPS ONLY
@compute @workgroup_size(WORKGROUP_SIZE)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
) {
    run(gid, lane);
}
// END SUBGROUPS ONLY

@compute @workgroup_size(WORKGROUP_SIZE)
fn main_no_sg(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
) {
    run(gid, local_index);
}
