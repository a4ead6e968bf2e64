//! The app shows the figures that explain themselves (issue 38): the branch table names the
//! clause of each row naga makes of a `&&`/`||` chain, and the summary says when subgroups are
//! never full; with the cost checkbox, each branch's measured cost (issue 35). Real runs on the default adapter (lavapipe in CI), driven through the
//! Playground as a user would.

use divlab::app::DivlabApp;
use divlab::profile::report::CostVerdict;
use eframe::egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;

use crate::app::{last_profile, run_playground};
use crate::app_kernels::tall_playground;

const CHAIN: &str = include_str!("../kernels/profile/clause_chain.wgsl");
const SHAPE: &str = include_str!("../kernels/profile/workgroup_4x2x4.wgsl");
const STEERS: &str = include_str!("../kernels/cost/steers_loop.wgsl");
const SWITCH: &str = include_str!("../../assets/kernels/lane_bits_switch.wgsl");

/// Runs `source` in the Playground.
fn run(harness: &mut Harness<'static, DivlabApp>, source: &str) {
    harness.run();
    harness.state_mut().state.playground.source = source.to_owned();
    harness.run();
    run_playground(harness);
}

#[test]
fn a_chains_rows_name_their_clauses_and_a_never_full_shape_says_so() {
    let mut harness = tall_playground();
    run(&mut harness, CHAIN);
    // The three rows of the `&&` line and the two of the `||` line, each by its clause.
    for label in [
        "if `i % 2u == 0u` && (col 9)",
        "if `i % 4u == 0u` && (col 25)",
        "if `i % 16u == 0u`, the whole condition (col 41)",
        "if `i < 8u` || (col 9)",
        "if `i >= 120u`, the whole condition (col 19)",
    ] {
        harness.get_by_label(label);
    }

    run(&mut harness, SHAPE);
    let profile = last_profile(&harness);
    let (sg, widest) = (
        profile.subgroup_size.unwrap(),
        profile.widest_ballot.unwrap(),
    );
    let figure = format!("subgroups never full: at most {widest} of {sg} lanes");
    if sg == 8 {
        assert_eq!(widest, 4, "lavapipe fills a subgroup from one row along x");
    }
    if widest < sg {
        harness.get_by_label(&figure);
    } else {
        assert!(harness.query_by_label(&figure).is_none());
    }
}

/// "Measure each divergent branch's cost" in the run settings runs `--cost` (issue 35): the
/// branch table gains its cost column, and a branch whose result steers a later loop reads
/// `confounded` there, with the reason on hover.
#[test]
fn the_cost_checkbox_measures_each_branch_and_the_table_shows_the_verdict() {
    let mut harness = tall_playground();
    {
        let settings = &mut harness.state_mut().state.playground.settings;
        settings.cost = true;
        settings.workgroups = [4, 1, 1];
    }
    run(&mut harness, STEERS);
    let profile = last_profile(&harness);
    let line = 1 + STEERS
        .lines()
        .position(|l| l.contains("// the branch"))
        .unwrap() as u32;
    let branch = profile
        .branches
        .iter()
        .find(|b| b.line == line && b.kind == "if");
    let cost = branch
        .and_then(|b| b.cost.as_ref())
        .expect("the if was costed");
    assert_eq!(cost.verdict, CostVerdict::Confounded, "{cost:#?}");
    harness.get_by_label("cost here");
    harness.get_by_label(&cost.short());
}

/// "Counts: per invocation" in the run settings runs `--counts invocations`: the summary says
/// how the lines were counted, the branch table lists the `switch` that ran (its executions the
/// invocations that reached it, its divergence not measured), and a click on a line, which
/// records lanes only when counted per subgroup, starts no run.
#[test]
fn counted_per_invocation_the_pane_says_so_and_a_line_click_runs_nothing() {
    let mut harness = tall_playground();
    {
        let settings = &mut harness.state_mut().state.playground.settings;
        settings.counts = divlab::profile::run::Counts::Invocations;
        settings.workgroups = [4, 1, 1];
    }
    run(&mut harness, SWITCH);
    let profile = last_profile(&harness);
    assert_eq!(profile.request.counts.as_deref(), Some("invocations"));
    harness.get_by_label("counted per invocation");
    let line = 1 + SWITCH.lines().position(|l| l.contains("switch (")).unwrap() as u32;
    let switch = profile.branches.iter().find(|b| b.line == line).unwrap();
    assert_eq!(switch.executions, 256, "{switch:?}");
    // The table's row: divergent and wasted slots not measured.
    assert!(harness.query_all_by_label("—").count() >= 2);
    harness.get_by_label("line · source (hover a line for every figure)");
    let case = 1 + SWITCH.lines().position(|l| l.contains("v * 3u")).unwrap() as u32;
    harness
        .get_by_role_and_label(Role::Group, &format!("line {case}"))
        .get_by_label_contains("v * 3u")
        .click();
    harness.step();
    harness.run();
    let playground = harness.state().playground();
    assert!(!playground.running(), "a click ran the kernel again");
    assert!(
        playground.profile().is_some_and(|p| p.lanes.is_none()),
        "the profile is still shown, with no lanes asked for"
    );
}

/// Profiles `kernel` (a WGSL text) with `--lanes LINE` and `args`, and opens the profile in
/// the Playground on the lanes of that line.
fn lanes_of(kernel: &str, line: u32, args: &[&str]) -> Harness<'static, DivlabApp> {
    let _gpu = crate::util::gpu_shared();
    let dir = crate::util::temp_dir();
    let path = crate::util::path_in(&dir, "kernel.wgsl");
    std::fs::write(&path, kernel).unwrap();
    let json = crate::util::path_in(&dir, "kernel.json");
    let mut cmd = crate::util::divlab(dir.path());
    cmd.arg("profile").arg(&path).args(args);
    cmd.args(["--lanes", &line.to_string(), "--reps", "1", "--json"]);
    cmd.arg(&json);
    crate::util::run(cmd).assert_code(0);
    let mut harness = tall_playground();
    harness.run();
    harness.state_mut().open_path(&json);
    harness.run();
    harness
        .get_by_label(&format!("Lanes at line {line}"))
        .click();
    harness.run();
    harness
}

/// A profile of a long 1-D dispatch (16,384 workgroups of 64, a row each) opens on its lanes
/// folded into 16 columns of 1,024 rows: about square, where one column was a strip 64 cells
/// wide, more rows than a texture may have (its upload ended the app with a wgpu validation
/// panic on the H200's Collatz profile).
#[test]
fn a_long_line_of_workgroups_opens_folded_into_columns() {
    let harness = lanes_of(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n\
         \x20   if (gid.x % 3u == 0u) {\n\
         \x20       out[gid.x] = gid.x;\n\
         \x20   }\n\
         }\n",
        5,
        &["--dispatch", "16384"],
    );
    harness.get_by_label_contains(
        "16384 workgroups of 64 invocations, a row each in 16 columns of 1024, down then across",
    );
    assert!(
        harness
            .query_by_label_contains("More cells than the largest texture holds")
            .is_none(),
        "1,024 × 1,024 cells fit a texture"
    );
}

/// A dispatch map wider than the largest texture (2,080 × 8 invocations, the harness's
/// renderer takes 2,048 a side) opens without ending the app: it is averaged down to the
/// largest texture and says so.
#[test]
fn a_dispatch_map_wider_than_the_largest_texture_is_averaged_down_and_says_so() {
    let harness = lanes_of(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(8, 8)\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n\
         \x20   if (gid.x % 3u == 0u) {\n\
         \x20       out[gid.y * 2080u + gid.x] = gid.x;\n\
         \x20   }\n\
         }\n",
        5,
        &["--dispatch", "260"],
    );
    harness.get_by_label_contains("2080 × 8 invocations");
    harness.get_by_label_contains("More cells than the largest texture holds");
}
