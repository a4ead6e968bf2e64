//! The app shows the figures that explain themselves (issue 38): the branch table names the
//! clause of each row naga makes of a `&&`/`||` chain, and the summary says when subgroups are
//! never full. Real runs on the default adapter (lavapipe in CI), driven through the
//! Playground as a user would.

use divlab::app::DivlabApp;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;

use crate::app::run_playground;
use crate::app_kernels::playground_harness;

const CHAIN: &str = include_str!("../kernels/profile/clause_chain.wgsl");
const SHAPE: &str = include_str!("../kernels/profile/workgroup_4x2x4.wgsl");

/// Runs `source` in the Playground.
fn run(harness: &mut Harness<'static, DivlabApp>, source: &str) {
    harness.run();
    harness.state_mut().state.playground.source = source.to_owned();
    harness.run();
    run_playground(harness);
}

#[test]
fn a_chains_rows_name_their_clauses_and_a_never_full_shape_says_so() {
    let mut harness = playground_harness();
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
    let profile = harness
        .state()
        .playground()
        .profile()
        .expect("the run finished")
        .clone();
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
