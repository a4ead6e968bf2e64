//! Loops of fixed trips (`src/profile/instrument/fixed.rs`), counted on the host from the block
//! they stand in, on lavapipe: the same kernel with its bounds read from a buffer is counted
//! trip by trip on the GPU (its loops hoisted), and every line and branch must count alike.

use divlab::profile::fill::{BindingRef, BufferSpec};
use divlab::profile::report::Profile;

use crate::util;
use crate::util::{line, line_of};

/// Fixed loops of every shape the pass reads: an `i32` counting down, a `u32` stepped by 3 with
/// `<=`, a bound named by a `const`, one in a function called from a per-lane loop, `if`s and
/// a `continue` at the top of a fixed body, and a reduction's halving stride, in a `for` and in
/// a `while` that steps at the end of its body. `params` is read by the variable twin only.
const FIXED: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> params: array<u32>;

const LIMBS: u32 = 4u;

fn limbs(x: u32) -> u32 {
    var acc = x;
    for (var i = 0u; i < LIMBS; i++) { // limbs
        acc = acc * 3u + i; // limb body
    }
    return acc;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var acc = params[4];
    for (var r: i32 = 2; r >= 0; r--) { // outer
        for (var i = 0u; i < lid % 4u + 1u; i++) { // per-lane
            acc += limbs(i); // call
        }
        for (var k = 1u; k <= 8u; k += 3u) { // stepped
            if ((lid + k) % 3u == 0u) { // trip if
                acc ^= k; // even side
            } else {
                acc += 1u; // odd side
            }
            if (lid % 2u == 0u) {
                continue;
            }
            acc += 2u; // after continue
        }
    }
    for (var s = 32u; s > 0u; s >>= 1u) { // halving
        if (lid < s) {
            acc += s; // below s
        }
    }
    var stride: u32; stride = 16u; // a store, as the twin's
    while (stride > 0u) { // while
        if (lid % 32u < stride) {
            acc += 1u; // under the stride
        }
        stride = stride / 2u;
    }
    out[lid] = acc;
}
";

/// [`FIXED`] with each fixed bound read from `params` (2, 4, 8, the step 3, 32 and 16), on
/// the same lines: no loop of it is fixed.
fn variable_twin() -> String {
    FIXED
        .replace("i < LIMBS", "i < params[1]")
        .replace("r: i32 = 2", "r: i32 = i32(params[0])")
        .replace("k <= 8u; k += 3u", "k <= params[2]; k += params[3]")
        .replace("s = 32u", "s = params[5]")
        .replace("stride = 16u", "stride = params[6]")
}

fn profiled(source: &str) -> divlab::profile::run::Finished {
    util::profiled_as("fixed.wgsl", source, 3, |r| {
        r.buffers = vec![
            "params=values:2,4,8,3,0,32,16"
                .parse::<BufferSpec>()
                .unwrap(),
        ];
    })
}

/// Each line's (line, executions, active lanes) and each branch's (line, kind, executions,
/// divergent).
type Counts = (Vec<(u32, u64, Option<u64>)>, Vec<(u32, String, u64, u64)>);

fn counts(p: &Profile) -> Counts {
    let lines = (p.lines.iter())
        .map(|l| (l.line, l.executions, l.active_lanes))
        .collect();
    let branches = (p.branches.iter())
        .map(|b| (b.line, b.kind.clone(), b.executions, b.divergent))
        .collect();
    (lines, branches)
}

/// The fixed loops count on the host what the twin counts on the GPU, line by line and branch
/// by branch, with none of the twin's per-loop trip counters and fewer subgroup operations.
#[test]
fn fixed_loops_count_what_their_trips_counted_on_the_gpu_count() {
    let fixed = profiled(FIXED);
    let twin = profiled(&variable_twin());
    assert_eq!(counts(&fixed.profile), counts(&twin.profile));
    // Instrumented, each writes what it writes alone.
    for f in [&fixed, &twin] {
        let outputs = f.profile.outputs.as_ref().expect("both ran alone too");
        assert!(outputs.agree(), "{outputs:?}");
    }
    // Every loop of the twin keeps its own trip counter; of the fixed kernel, only the
    // per-lane loop.
    let own_counters = |f: &divlab::profile::run::Finished| {
        (f.instrumented_wgsl.lines())
            .filter(|l| l.trim_start().starts_with("var divlab_trips"))
            .count()
    };
    assert_eq!(own_counters(&twin), 6);
    assert_eq!(own_counters(&fixed), 1);
    let subgroup_ops =
        |f: &divlab::profile::run::Finished| f.instrumented_wgsl.matches("subgroup").count();
    assert!(
        subgroup_ops(&fixed) < subgroup_ops(&twin),
        "{} subgroup operations fixed, {} in the twin",
        subgroup_ops(&fixed),
        subgroup_ops(&twin)
    );
}

/// The counts by hand, for the lines only fixed loops reach: each of the SG-lane subgroups of
/// the workgroup enters the outer loop once and runs its 3 trips together, each with the
/// stepped loop's 3 trips; the limbs loop runs 4 trips per call, one call per per-lane trip
/// (lane `l` runs `l % 4 + 1` of them, 2.5 on average, 3 times).
#[test]
fn fixed_loops_count_their_trips_times_their_lanes() {
    let p = profiled(FIXED).profile;
    let sg = u64::from(p.subgroup_size.expect("lavapipe has subgroups"));
    let subgroups = 64 / sg;
    let after = line(&p, line_of(FIXED, "// after continue"));
    assert_eq!(after.executions, 3 * 3 * subgroups);
    assert_eq!(after.active_lanes, Some(3 * 3 * 64 / 2));
    let limb = line(&p, line_of(FIXED, "// limb body"));
    assert_eq!(limb.active_lanes, Some(3 * 4 * (64 / 4) * (1 + 2 + 3 + 4)));
    // The halving stride's 6 trips, s = 32, 16, .., 1: lanes below s take the `if`.
    let below = line(&p, line_of(FIXED, "// below s"));
    assert_eq!(below.active_lanes, Some(32 + 16 + 8 + 4 + 2 + 1));
}

/// A run cut by the loop cap says that its fixed loops count trips that may not have run.
#[test]
fn a_capped_run_says_its_fixed_loops_count_every_trip() {
    let source = "\
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var n = data[lid];
    while (n != 1u) { // spin
        n += 2u;
    }
    for (var i = 0u; i < 4u; i++) { // fixed
        data[lid] += i;
    }
}
";
    let finished = util::profiled_as("capped.wgsl", source, 3, |r| {
        r.loop_cap = 1000;
        r.buffers = vec!["data=zeros".parse::<BufferSpec>().unwrap()];
    });
    assert!(finished.cap_hit.is_some());
    let fixed = line_of(source, "// fixed");
    let note = (finished.profile.notes.iter())
        .find(|n| n.contains("fixed trips"))
        .unwrap_or_else(|| panic!("no note on the fixed loop: {:#?}", finished.profile.notes));
    assert!(
        note.contains(&format!("line {fixed}")) && note.contains("did not run"),
        "{note}"
    );
}

/// A fixed loop inside one bounded by a random input (`data=random`): each outer trip passes 6 cap checks (its
/// own, then the inner loop's 4 trips and its last test), so a cap of 1,003 is passed at the
/// inner loop's first trip, and the message says that the inner loop's 4 trips are known,
/// then names the outer loop's input.
#[test]
fn a_fixed_loop_that_reaches_the_cap_blames_the_loops_around_it() {
    let source = "\
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var acc = 0u;
    for (var b = 0u; b < data[0]; b++) { // outer
        for (var w = 0u; w < 4u; w++) { // fixed
            acc += w;
        }
    }
    data[lid + 1u] = acc;
}
";
    let finished = util::profiled_as("nested.wgsl", source, 3, |r| {
        r.loop_cap = 1003;
        // Asked for by name: the default would set `data[0]`, a bound, to the invocations.
        r.buffers = vec!["data=random".parse::<BufferSpec>().unwrap()];
        r.lens = vec![(BindingRef::Name("data".to_owned()), 65)];
    });
    assert_eq!(
        finished.profile.loop_cap_line,
        Some(line_of(source, "// fixed"))
    );
    let message = finished.cap_hit.expect("a random bound runs past the cap");
    let outer = line_of(source, "// outer");
    for part in [
        "runs 4 trips at each entry (`w` steps from a constant to `4u`)".to_owned(),
        format!("The loop around it at line {outer} reads its bound from `data[0]`"),
    ] {
        assert!(message.contains(&part), "no `{part}` in: {message}");
    }
}
