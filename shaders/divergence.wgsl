// The divergence cost study's kernel. Every lane picks a path `sel` in [0, k), runs that path's
// arithmetic, and stores the result.
//
// As written, this file is the predicated (branch-free) variant: every lane runs the same loop
// with per-lane constants. divlab generates the branchy forms (if/else-if chain, switch, nested
// binary ifs, loop trip-count divergence) by replacing `run_paths` between the `divlab:paths`
// markers; see src/shaders/divergence.rs.
// Keep in sync with src/shaders/divergence.rs (DivergenceParams, MODE_*, FLOPS).
enable subgroups;

override WORKGROUP_SIZE: u32 = 64u;

// What a dispatch does. Keep in sync with `Variant` in src/shaders/divergence.rs.
const VARIANT_WORK: u32 = 0u;         // the study's kernel
const VARIANT_PROBE_LANES: u32 = 1u;  // store the entry ballot's lane count; no work
const VARIANT_EMPTY: u32 = 2u;        // return at once: the dispatch floor

// How the selector is chosen.
const MODE_LANE_DIVERGENT: u32 = 0u;     // sel = subgroup_invocation_id % k
const MODE_SUBGROUP_UNIFORM: u32 = 1u;   // sel = subgroup number % k: same mix, no divergence

struct DivergenceParams {
    k: u32,
    mode: u32,
    // VARIANT_*: the timed work, or one of the two dispatches that measure the method itself.
    variant: u32,
    _pad1: u32,
    // Loop trips of path j, at trips[j / 4][j % 4]. The host keeps every entry small, so every
    // loop below is bounded by construction.
    trips: array<vec4<u32>, 32>,
}

// A read-only storage buffer, not a uniform buffer: some drivers (Mesa's lavapipe) inline
// uniform values into a recompiled shader per value, which would both specialize k away and
// put compile time inside the timed dispatch.
@group(0) @binding(0) var<storage, read> params: DivergenceParams;
@group(0) @binding(1) var<storage, read_write> sink: array<vec4<f32>>;

// Four independent vec4 chains: enough ILP that the issue rate, not FMA latency, bounds a path.
struct State {
    a: vec4<f32>,
    b: vec4<f32>,
    c: vec4<f32>,
    d: vec4<f32>,
}

// Read once before each loop: `params` is a storage buffer that may alias the sink as far as
// the compiler knows, so a bound read in the loop condition is reloaded every trip.
fn trips(j: u32) -> u32 {
    return params.trips[j / 4u][j % 4u];
}

// One loop trip: 2 x 4 vec4 FMAs = 32 scalar FMAs. Kept short on purpose: every path has its
// own copy, and 32 paths of long bodies overflow the instruction cache (seen on the H200 at
// 16 paths x 128 FMAs), which adds a cost that is not divergence.
fn trip(s: State, m: vec4<f32>, c: vec4<f32>) -> State {
    var a = s.a; var b = s.b; var e = s.c; var d = s.d;
    a = fma(a, m, c); b = fma(b, m, c); e = fma(e, m, c); d = fma(d, m, c);
    a = fma(a, m, c); b = fma(b, m, c); e = fma(e, m, c); d = fma(d, m, c);
    return State(a, b, e, d);
}

// Path j's constants. The generated forms spell them out as literals per path.
fn path_m(j: u32) -> vec4<f32> {
    return vec4<f32>(0.9999 - f32(j) * 1e-5);
}

fn path_c(j: u32) -> vec4<f32> {
    return vec4<f32>(1e-4 + f32(j) * 1e-6);
}

// divlab:paths begin
// Predicated: no branch on `sel`; each lane's constants are arithmetic on `sel`, and every lane
// runs path 0's trip count, which is the same useful work per lane.
fn run_paths(sel: u32, s0: State) -> State {
    var s = s0;
    let m = path_m(sel);
    let c = path_c(sel);
    let n = trips(0u);
    for (var i = 0u; i < n; i++) {
        s = trip(s, m, c);
    }
    return s;
}
// divlab:paths end

@compute @workgroup_size(WORKGROUP_SIZE)
// divlab:selector begin
// The selector from subgroup builtins. For adapters without subgroups divlab replaces this block
// (kernels.rs, `Selection::Block`): sel = gid.x % k, and a control uniform over every aligned
// block of 128 consecutive invocations.
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) subgroup_size: u32,
) {
    // An empty dispatch with the same pipeline and bindings: the fixed per-dispatch cost.
    if params.variant == VARIANT_EMPTY {
        return;
    }
    // The subgroup size this pipeline runs with, from a ballot at entry (all lanes active): a
    // driver may pick a size per pipeline (lavapipe does), so the study asks its own kernel.
    if params.variant == VARIANT_PROBE_LANES {
        let ballot = countOneBits(subgroupBallot(true));
        let lanes_at_entry = ballot.x + ballot.y + ballot.z + ballot.w;
        sink[gid.x] = vec4<f32>(f32(lanes_at_entry), f32(lane), f32(subgroup_size), 0.0);
        return;
    }
    var sel = lane % params.k;
    if params.mode == MODE_SUBGROUP_UNIFORM {
        // The subgroup's first invocation names the subgroup, whatever the lane mapping.
        sel = (subgroupBroadcastFirst(gid.x) / subgroup_size) % params.k;
    }
    // divlab:selector end
    let seed = f32(gid.x & 255u) * 1e-3;
    let a = vec4<f32>(seed, seed + 0.1, seed + 0.2, seed + 0.3);
    let s = run_paths(sel, State(a, a + 0.5, a + 1.0, a + 1.5));
    sink[gid.x] = s.a + s.b + s.c + s.d;
}
