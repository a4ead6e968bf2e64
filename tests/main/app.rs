//! The desktop app, headless: egui_kittest drives it and renders it with wgpu on lavapipe.
//! Documents come from real runs and the reference results in `assets/reference`; snapshots
//! (`tests/snapshots/*.png`) are compared, and `UPDATE_SNAPSHOTS=1 cargo test` refreshes them.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use divlab::app::lane_grid::{BallotColours, LaneGrid, record_points};
use divlab::app::playground::{EXAMPLE, Outcome, Playground};
use divlab::app::{DivlabApp, State, Tab};
use divlab::report::{ExperimentStatus, LaneRecord, ResultDocument, read_json, write_json};
use eframe::egui::{self, Color32, Pos2, Rect, accesskit::Role, vec2};
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use egui_kittest::{Harness, SnapshotOptions};

use crate::util::bench_doc;

/// lavapipe against lavapipe (same Mesa in CI): only anti-aliasing noise may differ.
fn snapshot_options() -> SnapshotOptions {
    SnapshotOptions::new().threshold(1.0).max_failed_pixels(8)
}

pub(crate) fn harness(app: DivlabApp) -> Harness<'static, DivlabApp> {
    harness_at([1280.0, 900.0], app)
}

/// `app` in a window of `size`, drawn through wgpu.
pub(crate) fn harness_at(size: [f32; 2], app: DivlabApp) -> Harness<'static, DivlabApp> {
    Harness::builder()
        .with_size(size)
        .wgpu()
        .build_ui_state(|ui, app: &mut DivlabApp| app.show(ui), app)
}

/// The app on its Playground tab, in a window of `size`.
pub(crate) fn playground_at(size: [f32; 2]) -> Harness<'static, DivlabApp> {
    harness_at(
        size,
        DivlabApp::new(State {
            tab: Tab::Playground,
            ..State::default()
        }),
    )
}

/// The profile of the Playground's last run, which must have finished.
pub(crate) fn last_profile(
    harness: &Harness<'static, DivlabApp>,
) -> divlab::profile::report::Profile {
    let profile = harness.state().playground().profile();
    profile.expect("the run finished").clone()
}

/// Runs frames until the worker is idle, or fails after `limit`. Then until the UI settles: a
/// progress event the worker sent before it ended may still ask for a repaint a few frames on
/// (it did on a loaded 2-core machine).
fn run_until_idle(harness: &mut Harness<'_, DivlabApp>, limit: Duration) {
    step_until(harness, limit, "the run", |app| !app.running());
    for _ in 0..8 {
        if harness.try_run().is_ok() {
            return;
        }
    }
    harness.run();
}

/// The path of a reference result file of the repository.
fn reference_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/reference")
        .join(name)
}

/// A reference result file of the repository.
fn reference(name: &str) -> ResultDocument {
    let path = reference_path(name);
    read_json(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Experiment `id` of reference file `name`.
fn reference_result(name: &str, id: &str) -> divlab::report::ExperimentResult {
    reference(name)
        .experiments
        .into_iter()
        .find(|e| e.id == id)
        .unwrap_or_else(|| panic!("{name} has no {id}"))
}

/// The app with reference file `name` open and experiment `id` selected.
pub(crate) fn showing(name: &str, id: &str) -> DivlabApp {
    let mut app = DivlabApp::new(State {
        selected: Some(id.to_owned()),
        ..State::default()
    });
    app.open_path(&reference_path(name));
    assert!(app.doc().is_some(), "{name}: {:?}", app.message);
    app
}

/// The rendered colour at `pos` (in points).
fn pixel_at(harness: &mut Harness<'_>, pos: Pos2) -> Color32 {
    let scale = harness.ctx.pixels_per_point();
    let image = harness.render().expect("the harness renders");
    let [r, g, b, a] = image
        .get_pixel((pos.x * scale) as u32, (pos.y * scale) as u32)
        .0;
    Color32::from_rgba_premultiplied(r, g, b, a)
}

/// Whether two rendered colours are the same palette colour: rendering shifts channels by a few
/// steps, and palette colours are at least 50 apart in some channel.
fn same_colour(a: Color32, b: Color32) -> bool {
    a.to_array()
        .iter()
        .zip(b.to_array())
        .all(|(x, y)| x.abs_diff(y) <= 10)
}

#[test]
fn app_opens_a_real_result_file_and_shows_chart_verdicts_and_lane_grid() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lavapipe.json");
    write_json(&path, bench_doc()).unwrap();
    let mut app = DivlabApp::new(State::default());
    assert!(!app.adapters().is_empty(), "the picker lists no adapter");
    app.open_path(&path);
    assert!(app.doc().is_some(), "not opened: {:?}", app.message);
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
    // Headed by what y is (in a unit chosen from the data) over what x is.
    harness.get_by_label_contains(&format!("over {}", series.x_label));
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
fn lane_grid_keeps_a_ballots_colour_when_scrolled() {
    // The catalog's last point gives every subgroup its own ballot: a colour given in order of
    // first appearance on screen would follow the scroll offset.
    let doc = reference("lavapipe-sg8.json");
    let result = doc
        .experiments
        .iter()
        .find(|e| e.id == "subgroup_ops.catalog")
        .expect("the reference has the catalog");
    let point = *record_points(&result.lanes).last().unwrap();
    let mut rows: Vec<&LaneRecord> = result.lanes.iter().filter(|r| r.point == point).collect();
    rows.sort_by_key(|r| r.subgroup);
    let (row, lane) = (4, 2);
    let ballot = rows[row].ballot[lane];
    assert_ne!(ballot, [0; 4], "the tracked lane must be active");
    // Rows above it hold other ballots, so scrolling them away changes the order in which
    // ballots first appear on screen.
    let earlier_ballots: Vec<_> = rows[..row].iter().flat_map(|r| &r.ballot).collect();
    assert!(
        !earlier_ballots.contains(&&ballot),
        "the tracked ballot must not appear in the rows above it"
    );

    let viewport_height = 100.0;
    let mut harness = Harness::builder()
        .with_size([420.0, 160.0])
        .wgpu()
        .build_ui(|ui| {
            egui::ScrollArea::vertical()
                .max_height(viewport_height)
                .show(ui, |ui| {
                    LaneGrid::new(&result.lanes, point).show(ui);
                });
        });
    harness.run();
    // The grid's layout: a 44-point label column, then square cells (18 points at this width).
    let cell_centre = |grid: Rect| {
        let cell = 18.0;
        grid.min + vec2(44.0 + cell * (lane as f32 + 0.5), cell * (row as f32 + 0.5))
    };
    let grid_before = harness.get_by_label_contains("lane grid:").rect();
    assert!(
        grid_before.height() > 2.0 * viewport_height,
        "the grid must be tall enough to scroll"
    );
    let before = pixel_at(&mut harness, cell_centre(grid_before));
    let expected = BallotColours::new(&result.lanes).colour_of(ballot);
    assert!(
        same_colour(before, expected),
        "ballot {ballot:x?} is painted {before:?}, not its colour {expected:?}"
    );

    // Over the row labels, so no lane's tooltip opens.
    harness.hover_at(grid_before.min + vec2(20.0, 40.0));
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: vec2(0.0, -54.0),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: egui::Modifiers::NONE,
    });
    harness.run();
    harness.remove_cursor();
    harness.run();
    let grid_after = harness.get_by_label_contains("lane grid:").rect();
    let scrolled = grid_before.top() - grid_after.top();
    assert!(scrolled > 18.0, "the wheel scrolled only {scrolled} points");
    let centre = cell_centre(grid_after);
    assert!(
        centre.y > grid_before.top() && centre.y < grid_before.top() + viewport_height,
        "the tracked cell scrolled out of view"
    );
    let after = pixel_at(&mut harness, centre);
    assert!(
        same_colour(before, after),
        "ballot {ballot:x?} changed colour from {before:?} to {after:?} when the grid scrolled by \
         {scrolled} points"
    );
}

/// Before any file is open, Compare says how to open one and where one comes from, naming
/// controls the window has.
#[test]
fn an_empty_compare_view_names_the_way_to_a_file() {
    let mut app = DivlabApp::new(State::default());
    app.state.tab = Tab::Compare;
    let mut harness = harness(app);
    harness.run();
    harness.get_by_label(divlab::app::compare::EMPTY);
    for control in ["Open…", "Save As…", "Run all"] {
        assert!(divlab::app::compare::EMPTY.contains(control), "{control}");
        harness.get_by_label(control);
    }
}

/// Files opened together (dropped, or named on the command line): a broken one is named in
/// the message even where a later one opened, and the good one is open.
#[test]
fn a_file_that_fails_among_several_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\"schema_version\": 3, \"experim").unwrap();
    let good = dir.path().join("good.json");
    write_json(&good, bench_doc()).unwrap();
    let mut app = DivlabApp::new(State::default());
    app.open_paths(&[broken, good]);
    let (is_error, message) = app.message.clone().expect("a message");
    assert!(is_error, "{message}");
    assert!(
        message.contains("broken.json") && message.contains("the other 1 opened"),
        "{message}"
    );
    app.state.tab = Tab::Compare;
    let mut harness = harness(app);
    harness.run();
    assert_eq!(harness.state().compare.docs().len(), 1);
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
    assert_eq!(harness.state().compare.docs().len(), 2);
    for name in ["first.json", "second.json"] {
        assert!(
            harness.query_all_by_label(name).next().is_some(),
            "{name} is not shown"
        );
    }
    let result = &bench_doc().experiments[0];
    harness
        .get_by_role_and_label(Role::Group, "subgroup.size")
        .get_by_label(&result.verdicts[0].check);
    let series = &result.series[0];
    // Headed by what y is (in a unit chosen from the data) over what x is.
    harness.get_by_label_contains(&format!("over {}", series.x_label));
}

#[test]
fn compare_view_matches_a_check_worded_with_each_devices_subgroup_size() {
    let files = ["lavapipe-sg8.json", "nvidia-h200.json"];
    let docs = files.map(reference);
    let mut app = DivlabApp::new(State::default());
    for name in files {
        app.open_path(&reference_path(name));
        assert!(
            app.message.as_ref().is_some_and(|(error, _)| !error),
            "{:?}",
            app.message
        );
    }
    app.state.tab = Tab::Compare;
    let mut harness = harness(app);
    harness.run();
    for doc in &docs {
        harness.get_by_label(&doc.adapter.name);
    }
    // The divergence experiments' F(SG) check names each device's subgroup size.
    let merged = "efficiency falls as n/k: F(n) matches the SIMT model";
    let worded = |doc: &ResultDocument, id: &str, size: &str| {
        let experiment = doc.experiments.iter().find(|e| e.id == id)?;
        let verdict = experiment
            .verdicts
            .iter()
            .find(|v| v.check.contains(size))?;
        Some(verdict.check.clone())
    };
    let ids: Vec<&str> = docs[0]
        .experiments
        .iter()
        .filter(|e| worded(&docs[0], &e.id, "F(8)").is_some())
        .map(|e| e.id.as_str())
        .collect();
    assert!(!ids.is_empty(), "no check names F(8) in {}", files[0]);
    for id in ids {
        let wordings = [
            worded(&docs[0], id, "F(8)").unwrap(),
            worded(&docs[1], id, "F(32)")
                .unwrap_or_else(|| panic!("{id} has no F(32) check in {}", files[1])),
        ];
        let group = harness.get_by_role_and_label(Role::Group, id);
        assert_eq!(
            group.query_all_by_label(merged).count(),
            1,
            "{id}: `{merged}` is not on exactly one row"
        );
        for wording in &wordings {
            assert_eq!(
                harness.query_all_by_label_contains(wording).count(),
                0,
                "{id}: `{wording}` has its own row"
            );
        }
    }
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
        .doc()
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

/// A function ending in a loop only `return` leaves is valid WGSL naga 30 rejects: the
/// Playground checks it as it is typed, with the analysis on the lines the user wrote, and
/// names the function that needed a `return`.
#[test]
fn playground_takes_valid_wgsl_that_naga_rejects() {
    let source = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n\
                  fn first_set(bits: u32) -> u32 {\n\
                  \x20   var i = 0u;\n\
                  \x20   loop {\n\
                  \x20       if ((bits >> i) & 1u) == 1u || i == 31u { return i; }\n\
                  \x20       i += 1u;\n\
                  \x20   }\n\
                  }\n\
                  @compute @workgroup_size(64)\n\
                  fn main(@builtin(local_invocation_index) lid: u32) { data[lid] = first_set(data[lid]); }\n";
    let mut playground = Playground::new(source.to_owned());
    playground.check();
    let Outcome::Analysed(analysis) = playground.outcome() else {
        panic!("valid WGSL called invalid");
    };
    assert_eq!(playground.entries(), ["main"]);
    let added: Vec<(&str, u32)> = (analysis.added_returns().iter())
        .map(|a| (a.function.as_str(), a.line))
        .collect();
    assert_eq!(added, [("first_set", 8)]);
    assert!(
        analysis.line(5).is_some() && analysis.line(8).is_none(),
        "{:?}",
        analysis.lines
    );
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
    let errors: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == divlab::uniformity::Severity::Error)
        .collect();
    assert!(
        errors.is_empty(),
        "the example is itself an error: {errors:?}"
    );
    let ballot_line = EXAMPLE
        .lines()
        .position(|l| l.contains("odd = subgroupBallot"))
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

/// Runs frames until `done` holds, or fails after `limit`; returns the time it took.
pub(crate) fn step_until(
    harness: &mut Harness<'_, DivlabApp>,
    limit: Duration,
    what: &str,
    done: impl Fn(&DivlabApp) -> bool,
) -> Duration {
    let start = Instant::now();
    while !done(harness.state()) {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(10));
        harness.step();
    }
    start.elapsed()
}

/// Replaces the text of the path prompt's field.
pub(crate) fn type_path(harness: &mut Harness<'_, DivlabApp>, path: &str) {
    harness.get_by_label("Path:").focus();
    harness.run();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.get_by_label("Path:").type_text(path);
    harness.run();
}

pub(crate) fn button<'a>(
    harness: &'a Harness<'_, DivlabApp>,
    label: &'a str,
) -> egui_kittest::Node<'a> {
    harness.get_by_role_and_label(Role::Button, label)
}

#[test]
fn save_after_open_asks_before_overwriting_and_save_as_uses_the_path_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let opened = dir.path().join("opened.json");
    write_json(&opened, bench_doc()).unwrap();
    // Someone else's file: not what divlab would write byte for byte.
    let original = format!("{}\n\n", std::fs::read_to_string(&opened).unwrap());
    std::fs::write(&opened, &original).unwrap();
    let mut app = DivlabApp::new(State::default());
    app.dialogs = divlab::app::files::DialogKind::Prompt;
    app.open_path(&opened);
    let mut harness = harness(app);
    harness.run();

    // Save writes to the opened file only after asking.
    button(&harness, "Save").click();
    harness.run();
    harness.get_by_label("Replace the file?");
    assert_eq!(std::fs::read_to_string(&opened).unwrap(), original);
    button(&harness, "Cancel").click();
    harness.run();
    assert!(!harness.state().asking(), "Cancel left the question open");
    assert_eq!(std::fs::read_to_string(&opened).unwrap(), original);

    // Save As without a native dialog: the path prompt, with its notice.
    button(&harness, "Save As…").click();
    harness.run();
    harness.get_by_label(divlab::app::files::DialogKind::PROMPT_NOTICE);
    let copy = dir.path().join("copy.json");
    type_path(&mut harness, &copy.display().to_string());
    button(&harness, "OK").click();
    harness.run();
    assert!(!harness.state().asking());
    let written = read_json(&copy).expect("Save As wrote a result file");
    assert_eq!(&written, bench_doc(), "Save As wrote another document");

    // The document's file is now the copy, which divlab wrote: Save needs no question.
    button(&harness, "Save").click();
    harness.run();
    assert!(
        !harness.state().asking(),
        "Save asked about a file divlab wrote"
    );

    // Save As onto the opened file asks, and Replace writes exactly the shown document.
    button(&harness, "Save As…").click();
    harness.run();
    type_path(&mut harness, &opened.display().to_string());
    button(&harness, "OK").click();
    harness.run();
    harness.get_by_label("Replace the file?");
    assert_eq!(std::fs::read_to_string(&opened).unwrap(), original);
    button(&harness, "Replace").click();
    harness.run();
    assert_eq!(&read_json(&opened).unwrap(), bench_doc());
    assert_ne!(std::fs::read_to_string(&opened).unwrap(), original);
}

#[test]
fn cancel_stops_a_single_running_experiment_within_a_second_and_records_it_cancelled() {
    let id = "divergence.if_chain";
    let state = State {
        selected: Some(id.to_owned()),
        quick: true,
        ..State::default()
    };
    let mut harness = harness(DivlabApp::new(state));
    harness.run();
    button(&harness, "Run").click();
    harness.step();
    // Into its timed sweep: the experiment is running and has reported progress.
    step_until(&mut harness, Duration::from_secs(120), "progress", |app| {
        app.running_experiment()
            .is_some_and(|(running, f)| running == id && f > 0.0)
    });
    harness.get_by_label_contains("running on the worker");
    // Cancel in the experiment's own header (the run controls have one too).
    harness
        .query_all_by_role_and_label(Role::Button, "Cancel")
        .next()
        .expect("a Cancel button while running")
        .click();
    let stopped = step_until(&mut harness, Duration::from_secs(30), "stop", |app| {
        !app.running()
    });
    assert!(
        stopped <= Duration::from_secs(1),
        "Cancel took {stopped:?} to stop {id}"
    );
    let app = harness.state();
    let result = app
        .doc()
        .and_then(|d| d.experiments.iter().find(|e| e.id == id))
        .expect("the cancelled experiment is recorded");
    assert_eq!(result.status, ExperimentStatus::Cancelled);
    assert!(result.series.is_empty() && result.verdicts.is_empty());
    let (error, message) = app.message.clone().expect("a message");
    assert!(!error && message.starts_with("cancelled"), "{message}");
}

#[test]
fn a_finished_experiment_shows_and_is_autosaved_while_run_all_goes_on() {
    let folder = tempfile::tempdir().unwrap();
    let state = State {
        selected: Some("subgroup.size".to_owned()),
        quick: true,
        ..State::default()
    };
    let mut app = DivlabApp::new(state);
    app.results_folder = Some(folder.path().to_owned());
    let mut harness = harness(app);
    harness.run();
    button(&harness, "Run all").click();
    harness.step();
    let has_result = |app: &DivlabApp| {
        app.doc()
            .is_some_and(|d| d.experiments.iter().any(|e| e.id == "subgroup.size"))
    };
    step_until(
        &mut harness,
        Duration::from_secs(120),
        "first result",
        |app| has_result(app) || !app.running(),
    );
    assert!(
        harness.state().running(),
        "Run all ended after one experiment"
    );
    harness.run_steps(2);
    let result = harness
        .state()
        .doc()
        .and_then(|d| d.experiments.iter().find(|e| e.id == "subgroup.size"))
        .cloned()
        .unwrap();
    assert_eq!(
        result.status,
        ExperimentStatus::Ok,
        "{}",
        result.status_detail
    );
    harness.get_by_label(&result.verdicts[0].check);
    let saved: Vec<_> = std::fs::read_dir(folder.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    let autosaved = read_json(&saved[0]).expect("the autosave is a result file");
    assert!(
        autosaved
            .experiments
            .iter()
            .any(|e| e.id == "subgroup.size")
    );
    harness.state().cancel_run();
    step_until(&mut harness, Duration::from_secs(30), "cancel", |app| {
        !app.running()
    });
}

#[test]
fn chart_axes_carry_time_units_chosen_from_the_data() {
    let name = "lavapipe-sg8.json";
    let id = "divergence.switch";
    let result = reference_result(name, id);
    let series = result
        .series
        .iter()
        .find(|s| s.y_label == "time (ns)")
        .expect("a time series");
    let max = result
        .series
        .iter()
        .filter(|s| s.y_label == series.y_label && s.x_label == series.x_label)
        .flat_map(|s| &s.points)
        .map(|p| p.y.max(p.y_max.unwrap_or(0.0)))
        .fold(0.0, f64::max);
    let unit = [(1e9, "s"), (1e6, "ms"), (1e3, "µs"), (0.0, "ns")]
        .into_iter()
        .find(|(at, _)| max >= *at)
        .unwrap()
        .1;
    let app = showing(name, id);
    let mut harness = harness(app);
    harness.run();
    harness.get_by_label(&format!("time ({unit}) over {}", series.x_label));
    assert_eq!(
        harness
            .query_all_by_label_contains("time (ns) over")
            .count(),
        usize::from(unit == "ns"),
        "a chart still shows raw nanoseconds"
    );
}

#[test]
fn compare_table_has_one_row_per_check_key_with_whole_labels() {
    let files = ["lavapipe-sg8.json", "lavapipe-sg4.json", "nvidia-h200.json"];
    let docs = files.map(reference);
    let mut app = DivlabApp::new(State::default());
    for name in files {
        app.open_path(&reference_path(name));
    }
    app.state.tab = Tab::Compare;
    let mut harness = Harness::builder()
        .with_size([1280.0, 20000.0])
        .wgpu()
        .build_ui_state(|ui, app: &mut DivlabApp| app.show(ui), app);
    harness.run();
    let statuses = [
        "held",
        "violated",
        "consistent",
        "inconsistent",
        "not_guaranteed",
        "inconclusive",
        "—",
    ];
    let mut checked = 0;
    for id in docs[0].experiments.iter().map(|e| e.id.as_str()) {
        // The keys of this experiment's verdicts in any document, and their wordings.
        let mut keys: Vec<&str> = Vec::new();
        let mut wordings: Vec<Vec<&str>> = Vec::new();
        for doc in &docs {
            for v in doc
                .experiments
                .iter()
                .filter(|e| e.id == id)
                .flat_map(|e| &e.verdicts)
            {
                match keys.iter().position(|k| *k == v.key) {
                    Some(i) => wordings[i].push(&v.check),
                    None => {
                        keys.push(&v.key);
                        wordings.push(vec![&v.check]);
                    }
                }
            }
        }
        if keys.is_empty() {
            continue;
        }
        let group = harness.get_by_role_and_label(Role::Group, id);
        let cells = group
            .query_all(egui_kittest::kittest::By::new().predicate(|node| {
                // A label keeps its text in its value.
                node.role() == Role::Label
                    && node.value().is_some_and(|l| statuses.contains(&l.as_str()))
            }))
            .count();
        assert_eq!(
            cells,
            keys.len() * files.len(),
            "{id}: {} keys over {} documents",
            keys.len(),
            files.len()
        );
        // A check worded alike on every device reads whole, on one row.
        for (key, wording) in keys.iter().zip(&wordings) {
            if wording.len() == files.len() && wording.iter().all(|w| *w == wording[0]) {
                assert_eq!(
                    group.query_all_by_label(wording[0]).count(),
                    1,
                    "{id}/{key}: `{}` is not one whole row",
                    wording[0]
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} checks compared");

    // Picking an experiment in the tree while comparing stays in Compare, and overlays it.
    harness
        .query_all_by_label("divergence.switch")
        .find(|node| node.accesskit_node().role() != Role::Group)
        .expect("the tree lists divergence.switch")
        .click();
    harness.run();
    assert_eq!(harness.state().state.tab, Tab::Compare);
    assert_eq!(
        harness.state().state.selected.as_deref(),
        Some("divergence.switch")
    );
    harness.get_by_label_contains("T_div/T_uniform over k");
}

/// The 1-based line of `source` that contains `needle`.
pub(crate) fn line_of(source: &str, needle: &str) -> u32 {
    source
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line has `{needle}`")) as u32
        + 1
}

pub(crate) fn playground_harness() -> Harness<'static, DivlabApp> {
    playground_at([1280.0, 900.0])
}

/// Loads the example the Examples menu names `label`.
pub(crate) fn pick_example(harness: &mut Harness<'static, DivlabApp>, label: &str) {
    harness.run();
    harness.get_by_label("Examples").click();
    harness.run();
    harness.get_by_label(label).click();
    harness.run();
}

/// Clicks Run and waits for the profile to finish.
pub(crate) fn run_playground(harness: &mut Harness<'static, DivlabApp>) {
    button(harness, "Run").click();
    harness.step();
    wait_for_playground(harness, "the run");
}

/// Waits for the Playground's run (`what`) to finish, then for the UI to settle.
pub(crate) fn wait_for_playground(harness: &mut Harness<'static, DivlabApp>, what: &str) {
    step_until(harness, Duration::from_secs(120), what, |app| {
        !app.playground().running()
    });
    harness.run();
}

#[test]
fn playground_runs_the_bounds_checked_example_and_paints_its_gutter() {
    let mut harness = playground_harness();
    pick_example(&mut harness, "Bounds-checked element-wise");
    let source = harness.state().playground().source.clone();
    assert!(
        source.contains("arrayLength(&output)"),
        "the example did not load"
    );
    run_playground(&mut harness);
    let last = harness.state().playground().last.as_ref().expect("a run");
    let finished = match &last.outcome {
        Ok(finished) => finished,
        Err(e) => panic!("the example failed: {}", e.message),
    };
    // Derived by hand: 2 workgroups of 64 lanes over 100 elements, so lanes 100..127 return.
    // With subgroups of S lanes laid out in order, the `return` runs in every subgroup holding
    // a lane >= 100, and the store in every subgroup holding a lane < 100.
    let s = finished
        .profile
        .subgroup_size
        .expect("lavapipe has subgroups");
    assert_eq!(s, crate::util::expected_subgroup_size());
    let (lanes, length): (u32, u32) = (128, 100);
    let returning = lanes.div_ceil(s) - length / s;
    let storing = length.div_ceil(s);
    let expected = [
        (
            line_of(&source, "return;"),
            returning,
            (lanes - length) as f64 / (returning * s) as f64,
        ),
        (
            line_of(&source, "output[i] ="),
            storing,
            length as f64 / (storing * s) as f64,
        ),
    ];
    for (line, executions, efficiency) in expected {
        let name = format!("line {line}");
        let group = harness.get_by_role_and_label(Role::Group, &name);
        group.get_by_label(&executions.to_string());
        group.get_by_label(&format!("{:.0}%", efficiency * 100.0));
    }
    // The `if` diverges only in the subgroup that straddles the end (when S does not divide
    // 100): its bar says so.
    let straddles = u32::from(length % s != 0);
    let branch = &finished.profile.branches[0];
    assert_eq!(branch.divergent, u64::from(straddles));
    // The instrumented run wrote what the kernel alone writes, and the summary says so.
    assert!(finished.profile.outputs.as_ref().is_some_and(|o| o.agree()));
    harness.get_by_label("outputs match the kernel alone");
    // The snapshot shows the profile without its times (the runs', the compile's), which
    // change from run to run.
    let mut app = harness.state_mut();
    if let Some(Ok(finished)) = app.state.playground.last.as_mut().map(|l| &mut l.outcome) {
        finished.profile.timing = None;
        finished.profile.compile_s = None;
    }
    let _ = &mut app;
    harness.run();
    harness.snapshot_options("playground_profile", &snapshot_options());

    // Clicking the store's line records which lanes run it: one lane-map row per subgroup
    // execution there, and the subgroup that straddles the end has lanes missing.
    let store = line_of(&source, "output[i] =");
    let group = format!("line {store}");
    harness
        .get_by_role_and_label(Role::Group, &group)
        .get_by_label_contains("output[i] =")
        .click();
    harness.step();
    wait_for_playground(&mut harness, "the lanes run");
    let cells = storing * s;
    harness.get_by_label(&format!("lane grid: {storing} subgroups, {cells} cells"));
    let last = harness.state().playground().last.as_ref().unwrap();
    let lanes = last
        .outcome
        .as_ref()
        .ok()
        .and_then(|f| f.profile.lanes.as_ref());
    let lanes = lanes.expect("the run recorded lanes");
    assert_eq!((lanes.line, lanes.executions), (store, u64::from(storing)));
    let active: u32 = lanes
        .records
        .iter()
        .map(|r| r.ballot.iter().map(|w| w.count_ones()).sum::<u32>())
        .sum();
    assert_eq!(active, length, "every stored element's lane, once");
}

#[test]
fn an_endless_loop_in_the_playground_ends_at_the_cap_with_its_line_and_the_app_responds() {
    let mut harness = playground_harness();
    harness.run();
    let source = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var n = gid.x | 1u;
    while (n != 0u) {
        n = n * 3u + 2u;
    }
    out[gid.x] = n;
}
";
    {
        let app = harness.state_mut();
        app.state.playground.source = source.to_owned();
        app.state.playground.settings.workgroups = [64, 1, 1];
        app.state.playground.settings.reps = 1;
    }
    harness.run();
    button(&harness, "Run").click();
    harness.step();
    assert!(harness.state().playground().running(), "Run did not start");
    // While it runs, frames keep coming and the editor takes input.
    let start = Instant::now();
    let mut slowest = Duration::ZERO;
    let mut edited = false;
    while harness.state().playground().running() {
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "the run never ended"
        );
        if !edited {
            let editor = harness.get_by_role(Role::MultilineTextInput);
            editor.focus();
            editor.type_text("// typed while it ran\n");
            edited = true;
        }
        let frame = Instant::now();
        harness.step();
        slowest = slowest.max(frame.elapsed());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        slowest < Duration::from_millis(500),
        "a frame took {slowest:?} while the kernel ran"
    );
    eprintln!(
        "the endless kernel ran {:?}; slowest frame {slowest:?}",
        start.elapsed()
    );
    harness.run();
    let app = harness.state();
    assert_ne!(
        app.playground().source,
        source,
        "the editor took no input during the run"
    );
    let last = app.playground().last.as_ref().expect("a run");
    let finished = last
        .outcome
        .as_ref()
        .unwrap_or_else(|e| panic!("{}", e.message));
    let loop_line = line_of(source, "while (n != 0u)");
    assert_eq!(finished.profile.loop_cap_line, Some(loop_line));
    let message = finished.cap_hit.as_deref().expect("the cap message");
    assert!(
        message.contains(&format!("playground.wgsl:{loop_line}:")),
        "{message}"
    );
    // The source shown is the edited one, so the message shows with the run's source: put the
    // run's source back and look for it at its line.
    let _ = app;
    harness.state_mut().state.playground.source = source.to_owned();
    harness.run();
    harness.get_by_label_contains("hit the loop cap");
    harness.get_by_role_and_label(Role::Group, &format!("line {loop_line}"));
}

/// A run the engine refuses marks the line of the binding or constant its error names, read
/// from the error's own field: a fill that does not fit its buffer, a format that cannot back a
/// texture, an override value the constant's type cannot hold, a fill that names a texture.
#[test]
fn a_refused_run_marks_the_line_of_the_binding_its_error_names() {
    let source = "// Two bindings and an override, on lines of their own.
@group(0) @binding(0) var<storage, read_write> out: array<u32, 2>;

@group(0) @binding(1) var tex: texture_2d<f32>;
override SHIFT: u32 = 0u;

@compute @workgroup_size(1)
fn main() {
    out[0] = u32(textureLoad(tex, vec2(0i), 0).x) << SHIFT;
}
";
    let mut harness = playground_harness();
    harness.run();
    let cases = [
        (
            "out=values:1,2,3",
            "",
            "",
            "out: array<u32, 2>",
            "values: gives 3 values",
        ),
        (
            "",
            "format tex=r32uint",
            "",
            "var tex:",
            "--format tex=r32uint",
        ),
        (
            "",
            "",
            "SHIFT=1.5",
            "override SHIFT",
            "--override SHIFT=1.5",
        ),
        // A buffer fill that names the texture: the texture's line.
        ("tex=zeros", "", "", "var tex:", "`tex` is a texture"),
    ];
    for (buffers, textures, overrides, declared, says) in cases {
        {
            let app = harness.state_mut();
            app.state.playground.source = source.to_owned();
            app.state.playground.settings.buffers = buffers.to_owned();
            app.state.playground.settings.textures = textures.to_owned();
            app.state.playground.settings.overrides = overrides.to_owned();
            app.state.playground.settings.workgroups = [1, 1, 1];
            app.state.playground.settings.reps = 1;
        }
        harness.run();
        run_playground(&mut harness);
        let last = harness.state().playground().last.as_ref().expect("a run");
        let Err(error) = &last.outcome else {
            panic!("the run with `{buffers}{textures}{overrides}` did not fail");
        };
        assert!(error.message.contains(says), "{}", error.message);
        assert!(!error.message.contains("line "), "{}", error.message);
        assert_eq!(error.line, line_of(source, declared), "{}", error.message);
        // The result pane shows that line of the source, marked.
        let text = source.lines().nth(error.line as usize - 1).unwrap();
        let marked = format!("{:>4}  {text}", error.line);
        assert!(
            harness.query_all_by_label(&marked).next().is_some(),
            "no `{marked}` beside the message"
        );
    }
}

#[test]
fn a_divergence_form_shows_the_generated_kernel_that_ran() {
    let name = "lavapipe-sg8.json";
    let id = "divergence.if_chain";
    let result = reference_result(name, id);
    let paths = result.params["paths_compiled"].as_u64().unwrap();
    let app = showing(name, id);
    // Tall enough that every line of the kernel is on screen.
    let mut harness = Harness::builder()
        .with_size([1280.0, 16000.0])
        .wgpu()
        .build_ui_state(|ui, app: &mut DivlabApp| app.show(ui), app);
    harness.run();
    // The generated if-chain with every path the run compiled, not the branch-free template.
    let header =
        format!("Source: generated if_chain kernel ({paths} paths, selection by subgroup)");
    harness.get_by_label(&header).click();
    harness.run();
    let last = paths - 1;
    harness.get_by_label_contains(&format!("}} else if sel == {}u {{", last - 1));
    assert_eq!(
        harness
            .query_all_by_label_contains(" else if sel == ")
            .count(),
        paths as usize - 2,
        "one `else if` per path between the first and the last"
    );
}

#[test]
fn a_line_a_verdict_names_links_to_the_kernel_source() {
    let name = "lavapipe-sg8.json";
    let id = "convergence.if_else";
    let result = reference_result(name, id);
    let line = result
        .verdicts
        .iter()
        .find_map(|v| {
            divlab::app::verdicts::named_lines(&v.detail)
                .first()
                .copied()
        })
        .expect("a verdict names a kernel line");
    let app = showing(name, id);
    let mut harness = harness(app);
    harness.run();
    let kernel = format!("{line:>4}  ");
    assert_eq!(
        harness.query_all_by_label_contains(&kernel).count(),
        0,
        "the source is open before the click"
    );
    harness
        .query_all_by_role_and_label(Role::Link, &format!("line {line}"))
        .next()
        .expect("a link to the line")
        .click();
    // The pane opens (animated) while the view scrolls to the line.
    harness.run_steps(30);
    // The kernel opened, and the named line is on screen.
    let shown = harness
        .query_all_by_label_contains(&kernel)
        .next()
        .expect("the kernel's line is shown");
    let screen = harness.ctx.content_rect();
    assert!(
        screen.contains_rect(shown.rect()),
        "line {line} is at {:?}, off the screen {screen:?}",
        shown.rect()
    );
}

/// The study's switch at k = 8 compiles 32 paths; the 24 loops that never ran are not listed,
/// so the annotated source stays in view under the branch table.
#[test]
fn playground_lists_only_the_branches_that_ran() {
    let mut harness = playground_harness();
    pick_example(&mut harness, "Divergence study: switch, k = 8");
    run_playground(&mut harness);
    let last = harness.state().playground().last.as_ref().expect("a run");
    let profile = &last.outcome.as_ref().expect("the example runs").profile;
    let idle = profile
        .branches
        .iter()
        .filter(|b| b.executions == 0)
        .count();
    assert_eq!(idle, 24, "paths 8..31 never run");
    harness.get_by_label("24 branches never ran: not listed.");
    // The source is annotated below the table: its entry point's line is on screen.
    let entry = format!("fn {}", profile.kernel.entry);
    let line = line_of(&last.source, &entry);
    harness.get_by_role_and_label(Role::Group, &format!("line {line}"));
}

/// A profile document the CLI saved opens in the Playground without running anything: the
/// kernel in the editor, each line's executions and efficiency in the gutter as the CLI printed
/// them, and the adapter it ran on in the message.
#[test]
fn a_cli_profile_document_opens_with_the_clis_figures() {
    let dir = crate::util::temp_dir();
    let kernel =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/profile/three_branches.wgsl");
    let json = crate::util::path_in(&dir, "three.json");
    let mut cmd = crate::util::divlab(dir.path());
    cmd.arg("profile")
        .arg(&kernel)
        .args(["--dispatch", "2", "--reps", "3", "--json"])
        .arg(&json);
    let cli = crate::util::run(cmd);
    cli.assert_code(0);
    // The CLI's gutter rows: `EXECS LANES EFF% [DIV%] STATIC | LINE SOURCE`.
    let rows: Vec<(u32, String, String)> = cli
        .stdout
        .lines()
        .filter_map(|row| {
            let (figures, source) = row.split_once('|')?;
            let figures: Vec<&str> = figures.split_whitespace().collect();
            let line = source.split_whitespace().next()?.parse().ok()?;
            let executions = figures.first()?.parse::<u64>().ok()?;
            Some((
                line,
                executions.to_string(),
                format!("{}%", figures.get(2)?),
            ))
        })
        .collect();
    assert!(rows.len() >= 5, "the CLI printed its gutter\n{cli}");

    let mut harness = harness(DivlabApp::new(State {
        tab: Tab::Compare,
        ..State::default()
    }));
    harness.run();
    harness.state_mut().open_path(&json);
    harness.run();
    let app = harness.state();
    assert_eq!(app.state.tab, Tab::Playground);
    let (is_error, message) = app.message.clone().expect("a message");
    assert!(!is_error && message.contains("llvmpipe"), "{message}");
    let source = std::fs::read_to_string(&kernel).unwrap();
    assert_eq!(app.playground().source, source);
    assert!(!app.playground().running(), "nothing ran");
    // Run would run it again as the CLI did.
    assert_eq!(app.playground().settings.workgroups, [2, 1, 1]);
    assert_eq!(app.playground().settings.reps, 3);
    for (line, executions, efficiency) in rows {
        let name = format!("line {line}");
        let group = harness.get_by_role_and_label(Role::Group, &name);
        group.get_by_label(&executions);
        group.get_by_label(&efficiency);
    }
}

/// A kernel opened from a file goes by its file's name, and its run settings are its own: a
/// second kernel starts from the defaults, not from the first one's, and the first gets its own
/// back when it is opened again.
#[test]
fn an_opened_kernel_keeps_its_name_and_its_own_settings() {
    let dir = crate::util::temp_dir();
    let first = crate::util::path_in(&dir, "first.wgsl");
    // The extension in any case, as Windows tools write it.
    let second = crate::util::path_in(&dir, "broken.WGSL");
    std::fs::write(&first, EXAMPLE).unwrap();
    std::fs::write(
        &second,
        "@compute @workgroup_size(1)\nfn main() { let x = ; }\n",
    )
    .unwrap();
    let mut harness = playground_harness();
    harness.run();
    harness.state_mut().open_path(&first);
    harness.state_mut().state.playground.settings.workgroups = [7, 1, 1];
    harness.state_mut().open_path(&second);
    harness.run();
    let playground = harness.state().playground();
    assert_eq!(
        playground.settings,
        divlab::app::playground::RunSettings::default()
    );
    assert_eq!(playground.file_name(), "broken.WGSL");
    // The compile error names the file it came from.
    assert!(
        harness
            .query_all_by_label_contains("broken.WGSL:2:")
            .next()
            .is_some()
    );
    harness.state_mut().open_path(&first);
    harness.run();
    assert_eq!(harness.state().playground().settings.workgroups, [7, 1, 1]);
    assert_eq!(harness.state().playground().source, EXAMPLE);
}

/// A module with two compute entry points offers both in the run settings, starts from the
/// first, and runs the one picked.
#[test]
fn a_two_entry_module_offers_both_entry_points() {
    let dir = crate::util::temp_dir();
    let path = crate::util::path_in(&dir, "two.wgsl");
    let source = "\
@group(0) @binding(0) var<storage, read_write> cells: array<u32>;

@compute @workgroup_size(64)
fn clear(@builtin(global_invocation_id) gid: vec3<u32>) { cells[gid.x] = 0u; }

@compute @workgroup_size(64)
fn bump(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x % 2u == 0u) { cells[gid.x] += 1u; }
}
";
    std::fs::write(&path, source).unwrap();
    let mut harness = playground_harness();
    harness.run();
    harness.state_mut().open_path(&path);
    harness.run();
    assert_eq!(harness.state().playground().entries(), ["clear", "bump"]);
    assert_eq!(harness.state().playground().settings.entry, "clear");
    harness
        .get_by_label("Run settings (as `divlab profile` takes them)")
        .click();
    harness.run();
    harness
        .get_by_role_and_label(Role::ComboBox, "entry point")
        .click();
    harness.run();
    // The list holds both entry points.
    harness.get_by_label("clear");
    harness.get_by_label("bump").click();
    harness.run();
    assert_eq!(harness.state().playground().settings.entry, "bump");
    run_playground(&mut harness);
    let last = harness.state().playground().last.as_ref().expect("a run");
    let finished = last
        .outcome
        .as_ref()
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(finished.profile.kernel.entry, "bump");
}

/// The reps field names the default it stands for rather than showing a bare 0, follows quick,
/// and never holds 1.
#[test]
fn the_reps_field_names_its_default() {
    let mut harness = harness(DivlabApp::new(State::default()));
    harness.run_steps(3);
    harness.get_by_value("default (5)");
    harness.get_by_label("quick").click();
    harness.run_steps(3);
    assert!(!harness.state().state.quick);
    harness.get_by_value("default (15)");
    // One round has no interval, and bench refuses it: a 1 typed in becomes 2.
    harness.state_mut().state.reps = 1;
    harness.run_steps(2);
    assert_eq!(harness.state().state.reps, 2);
    harness.get_by_value("2");
}
