//! Valid WGSL that naga 30 (and so wgpu) rejects, which divlab mends before it runs: a function
//! with a return type that ends in a loop only `return` leaves. Chrome's Tint takes it.

use divlab::profile::report::Profile;

use crate::util::{line_of, profiled_as};

/// `steps` leaves its loop only by `return`; the lanes of a subgroup loop as long as their own
/// number needs.
const ENDLESS: &str = "\
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

fn steps(n0: u32) -> u32 {
    var n = n0;
    var i = 0u;
    loop {
        if n <= 1u { return i; }
        if n % 2u == 0u { n = n / 2u; } else { n = 3u * n + 1u; }
        i += 1u;
    }
} // the end of steps

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    data[id.x] = steps(id.x + 1u);
}
";

fn profiled(source: &str) -> Profile {
    let finished = profiled_as("endless.wgsl", source, 3, |r| r.dispatch = [2, 1, 1]);
    assert!(finished.cap_hit.is_none(), "{:?}", finished.cap_hit);
    finished.profile
}

/// The kernel runs, and counts as the same kernel with the `return` written out on the
/// function's last line, line for line and branch for branch, but that the added `return`
/// counts on no line; the note names the function and the line, and the kernel alone (the
/// timing run, which compiles the text) wrote the same as the instrumented one.
#[test]
fn a_function_ending_in_a_loop_only_return_leaves_runs_as_if_its_return_were_written() {
    let end = line_of(ENDLESS, "// the end of steps");
    let written_out = ENDLESS.replace("} // the end of steps", "return 0u; } // the end of steps");
    assert!(divlab::shaders::check_wgsl("endless.wgsl", ENDLESS).is_err());
    let (mended, written) = (profiled(ENDLESS), profiled(&written_out));

    let counts = |p: &Profile| -> Vec<(u32, u64, Option<u64>)> {
        (p.lines.iter())
            .filter(|l| l.line != end)
            .map(|l| (l.line, l.executions, l.active_lanes))
            .collect()
    };
    assert_eq!(counts(&mended), counts(&written));
    assert!(
        mended.lines.iter().all(|l| l.line != end),
        "{:#?}",
        mended.lines
    );
    assert!(
        written
            .lines
            .iter()
            .any(|l| l.line == end && l.executions == 0)
    );
    let branches = |p: &Profile| -> Vec<(u32, String, u64, u64)> {
        (p.branches.iter())
            .map(|b| (b.line, b.kind.clone(), b.executions, b.divergent))
            .collect()
    };
    assert_eq!(branches(&mended), branches(&written));
    assert!(mended.lines.iter().any(|l| l.executions > 0));

    let note = (mended.notes.iter())
        .find(|n| n.starts_with("naga, which wgpu compiles with, rejects"))
        .unwrap_or_else(|| panic!("{:#?}", mended.notes));
    assert!(
        note.contains(&format!(
            "`return u32();` added at the end of `steps` (line {end})"
        )),
        "{note}"
    );
    assert!(written.notes.iter().all(|n| !n.starts_with("naga, which")));
    let outputs = mended
        .outputs
        .as_ref()
        .expect("a timed profile compares outputs");
    assert!(
        outputs
            .resources
            .iter()
            .all(|r| r.differing == 0 && r.compared > 0),
        "{outputs:#?}"
    );
}
