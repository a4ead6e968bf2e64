//! The desktop app, headless: egui_kittest drives it and renders it with wgpu on lavapipe.
//! Documents come from real runs; snapshots (`tests/snapshots/*.png`) are compared, and
//! `UPDATE_SNAPSHOTS=1 cargo test` refreshes them.

use std::time::{Duration, Instant};

use divlab::app::lane_grid::{LaneGrid, record_points};
use divlab::app::playground::{EXAMPLE, Outcome, Playground};
use divlab::app::{DivlabApp, State, Tab};
use divlab::report::{ExperimentStatus, write_json};
use egui_kittest::kittest::Queryable as _;
use egui_kittest::{Harness, SnapshotOptions};

use crate::util::bench_doc;

/// lavapipe against lavapipe (same Mesa in CI): only anti-aliasing noise may differ.
fn snapshot_options() -> SnapshotOptions {
    SnapshotOptions::new().threshold(1.0).max_failed_pixels(8)
}

fn harness(app: DivlabApp) -> Harness<'static, DivlabApp> {
    Harness::builder()
        .with_size([1280.0, 900.0])
        .wgpu()
        .build_ui_state(|ui, app: &mut DivlabApp| app.show(ui), app)
}

/// Runs frames until the worker is idle, or fails after `limit`.
fn run_until_idle(harness: &mut Harness<'_, DivlabApp>, limit: Duration) {
    let start = Instant::now();
    while harness.state().running() {
        assert!(
            start.elapsed() < limit,
            "the run did not finish in {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
        harness.step();
    }
    harness.run();
}

#[test]
fn app_opens_a_real_result_file_and_shows_chart_verdicts_and_lane_grid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lavapipe.json");
    write_json(&path, bench_doc()).unwrap();
    let mut app = DivlabApp::new(State::default());
    assert!(!app.adapters().is_empty(), "the picker lists no adapter");
    app.open_path(&path);
    assert!(app.doc.is_some(), "not opened: {:?}", app.message);
    let mut harness = harness(app);
    harness.get_by_label("subgroup.size").click();
    harness.run();
    assert_eq!(
        harness.state().state.selected.as_deref(),
        Some("subgroup.size")
    );
    let result = &bench_doc().experiments[0];
    // The chart: one plot per axis pair of the generic series.
    let series = &result.series[0];
    harness.get_by_label(&format!("{} over {}", series.y_label, series.x_label));
    // The verdicts table: every check, with its status.
    for v in &result.verdicts {
        harness.get_by_label(&v.check);
    }
    assert!(
        harness
            .query_all_by_label(result.verdicts[0].status.as_str())
            .next()
            .is_some(),
        "no verdict status shown"
    );
    // The lane grid of the first record point.
    let point = record_points(&result.lanes)[0];
    let cells: usize = result
        .lanes
        .iter()
        .filter(|r| r.point == point)
        .map(|r| r.local_index.len())
        .sum();
    harness.get_by_label_contains(&format!("{cells} cells"));
}

#[test]
fn lane_grid_of_a_real_run_matches_its_snapshot() {
    let result = &bench_doc().experiments[0];
    assert!(!result.lanes.is_empty(), "subgroup.size recorded no lanes");
    let point = record_points(&result.lanes)[0];
    let mut harness = Harness::builder()
        .with_size([420.0, 200.0])
        .wgpu()
        .build_ui(|ui| {
            LaneGrid::new(&result.lanes, point).show(ui);
        });
    harness.run();
    harness.get_by_label_contains("lane grid:");
    harness.snapshot_options("lane_grid_subgroup_size", &snapshot_options());
}

#[test]
fn compare_view_shows_two_documents_and_their_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = DivlabApp::new(State::default());
    for name in ["first.json", "second.json"] {
        let path = dir.path().join(name);
        write_json(&path, bench_doc()).unwrap();
        app.open_path(&path);
    }
    app.state.tab = Tab::Compare;
    let mut harness = harness(app);
    harness.run();
    assert_eq!(harness.state().compare.docs.len(), 2);
    for name in ["first.json", "second.json"] {
        assert!(
            harness.query_all_by_label(name).next().is_some(),
            "{name} is not shown"
        );
    }
    let result = &bench_doc().experiments[0];
    harness.get_by_label(&format!("subgroup.size: {}", result.verdicts[0].check));
    let series = &result.series[0];
    harness.get_by_label(&format!("{} over {}", series.y_label, series.x_label));
}

#[test]
fn clicking_run_on_subgroup_size_completes_on_lavapipe() {
    let state = State {
        selected: Some("subgroup.size".to_owned()),
        quick: true,
        ..State::default()
    };
    let mut harness = harness(DivlabApp::new(state));
    harness.run();
    harness
        .get_by_role_and_label(eframe::egui::accesskit::Role::Button, "Run")
        .click();
    harness.step();
    assert!(harness.state().running(), "Run did not start a worker");
    run_until_idle(&mut harness, Duration::from_secs(300));
    let app = harness.state();
    let doc = app
        .doc
        .as_ref()
        .unwrap_or_else(|| panic!("no document: {:?}", app.message));
    let result = doc
        .experiments
        .iter()
        .find(|e| e.id == "subgroup.size")
        .expect("subgroup.size is in the document");
    assert_eq!(
        result.status,
        ExperimentStatus::Ok,
        "{}",
        result.status_detail
    );
    assert_eq!(
        doc.adapter.observed_subgroup_size,
        Some(crate::util::expected_subgroup_size())
    );
    harness.get_by_label(&result.verdicts[0].check);
}

#[test]
fn playground_shows_a_compile_error_at_its_line_and_static_verdicts() {
    let mut playground =
        Playground::new("fn f() {}\n\nfn g() -> u32 {\n    let x = ;\n}\n".to_owned());
    playground.check();
    match playground.outcome() {
        Outcome::Invalid { line, .. } => assert_eq!(*line, 4, "error on the wrong line"),
        _ => panic!("a missing expression compiled"),
    }
    let mut playground = Playground::new(EXAMPLE.to_owned());
    playground.check();
    let Outcome::Analysed(analysis) = playground.outcome() else {
        panic!("the example does not compile");
    };
    let ballot_line = EXAMPLE
        .lines()
        .position(|l| l.contains("subgroupBallot"))
        .unwrap() as u32
        + 1;
    assert_eq!(
        analysis.line(ballot_line).map(|l| l.verdict),
        Some(divlab::uniformity::Verdict::NonUniform)
    );
    let state = State {
        tab: Tab::Playground,
        ..State::default()
    };
    let mut harness = harness(DivlabApp::new(state));
    harness.run();
    harness.snapshot_options("playground_example", &snapshot_options());
}
