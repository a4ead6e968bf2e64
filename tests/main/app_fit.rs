//! The app as a first-time user meets it in its default 1280 × 800 window (issue #38): side by
//! side that reads as two aligned panes, a layout that holds still, edited kernels that say so
//! and ask before they are lost, a prompt that takes the keyboard, and views that open where
//! the eye should land. Every check is of behaviour (what is shown, where, what is asked), on
//! real runs on the default adapter.

use divlab::app::playground::Playground;
use divlab::app::{DivlabApp, State, Tab};
use divlab::profile::report::Profile;
use eframe::egui::{self, Rect, ViewportCommand, ViewportEvent, ViewportId, accesskit::Role};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;

use crate::app::{
    button, harness_at, last_profile, line_of, pick_example, playground_at, run_playground,
    wait_for_playground,
};

/// The default window.
const WINDOW: [f32; 2] = [1280.0, 800.0];

/// Whether `rect` lies inside a window of `size`.
fn inside(rect: Rect, size: [f32; 2]) -> bool {
    rect.min.x >= 0.0 && rect.min.y >= 0.0 && rect.max.x <= size[0] && rect.max.y <= size[1]
}

/// The executions the profile counted at `line`.
fn executions(profile: &Profile, line: u32) -> u64 {
    profile
        .lines
        .iter()
        .find(|l| l.line == line)
        .unwrap_or_else(|| panic!("line {line} not counted"))
        .executions
}

const COLLATZ: &str = "Collatz loop";

/// Collatz pinned, its `if` made a `select` (four lines fewer), and run again.
pub(crate) fn pinned_then_edited(harness: &mut Harness<'static, DivlabApp>) -> (Profile, Profile) {
    pick_example(harness, COLLATZ);
    run_playground(harness);
    let before = last_profile(harness);
    button(harness, "Pin for side by side").click();
    harness.run();
    let edited = harness.state().playground().source.replace(
        "        if ((n & 1u) == 0u) {\n            n = n / 2u;\n        } else {\n            \
             n = 3u * n + 1u;\n        }\n",
        "        n = select(3u * n + 1u, n / 2u, (n & 1u) == 0u);\n",
    );
    assert!(!edited.contains("} else {"), "the edit applies");
    harness.state_mut().state.playground.source = edited;
    harness.run();
    run_playground(harness);
    (before, last_profile(harness))
}

/// At 1280 × 800, side by side shows a line's figures from both runs at once, in two panes of
/// equal width, inside the window; lines pair by text, so the line after the edit pairs with
/// itself four lines up; at 1024 × 700 the heading still reads as words.
#[test]
fn side_by_side_at_1280x800_shows_both_runs_figures_for_a_line_without_scrolling() {
    let mut harness = playground_at(WINDOW);
    let (before, after) = pinned_then_edited(&mut harness);
    let (source_a, source_b) = (
        before.source.clone().unwrap(),
        after.source.clone().unwrap(),
    );
    harness.get_by_label_contains("Two versions of collatz.wgsl");
    for (a, b) in [
        (
            line_of(&source_a, "while (n != 1u"),
            line_of(&source_b, "while (n != 1u"),
        ),
        (
            line_of(&source_a, "count += 1u;"),
            line_of(&source_b, "count += 1u;"),
        ),
    ] {
        let (left, right) = (format!("pinned line {a}"), format!("this run line {b}"));
        let left = harness.get_by_role_and_label(Role::Group, &left);
        let right = harness.get_by_role_and_label(Role::Group, &right);
        let l = left
            .get_by_label(&executions(&before, a).to_string())
            .rect();
        let r = right
            .get_by_label(&executions(&after, b).to_string())
            .rect();
        assert!(inside(l, WINDOW) && inside(r, WINDOW), "{l:?} {r:?}");
        assert!(
            (l.center().y - r.center().y).abs() < 1.0,
            "not one row: {l:?} {r:?}"
        );
        // Two equal panes across the central panel (the 300-point tree beside it).
        let apart = r.min.x - l.min.x;
        assert!(apart > 440.0, "panes of {apart} points");
    }
    let title = harness
        .get_by_label_contains("this run: control-flow efficiency")
        .rect();
    assert!(
        inside(title, WINDOW),
        "the right pane runs off the window: {title:?}"
    );
    assert_eq!(
        line_of(&source_a, "count += 1u;"),
        line_of(&source_b, "count += 1u;") + 4
    );

    harness.set_size(egui::vec2(1024.0, 700.0));
    harness.run();
    let heading = harness
        .get_by_label_contains("Two versions of collatz.wgsl")
        .rect();
    assert!(
        heading.width() > 400.0,
        "the heading is squeezed: {heading:?}"
    );
    assert!(
        heading.height() < 60.0,
        "the heading runs down: {heading:?}"
    );
}

/// A pinned profile of one kernel is not set beside another: opening another kernel leaves
/// side by side, its run opens on its source, and the view, when asked for, says "different
/// kernels" plainly.
#[test]
fn opening_another_kernel_leaves_side_by_side_and_warns_of_different_kernels() {
    let mut harness = playground_at(WINDOW);
    pinned_then_edited(&mut harness);
    assert_eq!(
        harness.state().playground().view(),
        divlab::app::profile_view::PaneView::SideBySide
    );
    pick_example(&mut harness, "Bounds-checked element-wise");
    run_playground(&mut harness);
    assert_eq!(
        harness.state().playground().view(),
        divlab::app::profile_view::PaneView::Source,
        "another kernel's run opened side by side"
    );
    harness
        .get_by_label("Side by side (different kernels)")
        .click();
    harness.run();
    harness.get_by_label_contains("Different kernels: collatz.wgsl (pinned)");
}

/// Closing the window over an edited kernel asks first: Cancel keeps the window, "Close
/// without saving" lets it close; an unedited kernel closes without a question.
#[test]
fn closing_with_an_edited_kernel_asks_first() {
    let dir = crate::util::temp_dir();
    let kernel = dir.path().join("collatz.wgsl");
    let original = include_str!("../../assets/kernels/collatz.wgsl");
    std::fs::write(&kernel, original).unwrap();
    let mut app = DivlabApp::new(State::default());
    app.open_path(&kernel);
    let mut harness = harness_at(WINDOW, app);
    harness.run();
    let close = |harness: &mut Harness<'static, DivlabApp>| {
        harness
            .input_mut()
            .viewports
            .entry(ViewportId::ROOT)
            .or_default()
            .events
            .push(ViewportEvent::Close);
        harness.step();
        let commands = &harness.output().viewport_output[&ViewportId::ROOT].commands;
        (
            commands.contains(&ViewportCommand::CancelClose),
            commands.contains(&ViewportCommand::Close),
        )
    };
    assert!(!close(&mut harness).0, "an unedited kernel asked");
    assert!(!harness.state().asking());

    harness.state_mut().state.playground.source = original.replace("10000u", "5000u");
    harness.run();
    harness.get_by_label("• collatz.wgsl (modified; checked as you type)");
    assert_eq!(close(&mut harness), (true, false), "the close went ahead");
    harness.run();
    harness.get_by_label("Save the kernel's edits?");
    button(&harness, "Cancel").click();
    harness.run();
    assert!(!harness.state().asking());
    assert!(harness.state().playground().modified());

    close(&mut harness);
    harness.run();
    button(&harness, "Close without saving").click();
    harness.step();
    let commands = &harness.output().viewport_output[&ViewportId::ROOT].commands;
    assert!(commands.contains(&ViewportCommand::Close), "{commands:?}");
    assert_eq!(harness.state().playground().source, original);
    assert_eq!(std::fs::read_to_string(&kernel).unwrap(), original);
}

/// An edited kernel is marked, and Save offers a new file beside it rather than replacing the
/// file it came from; Save of the unedited kernel offers nothing to replace; a comment-only
/// edit keeps the profile in view, marked stale, and a code edit hides it.
#[test]
fn an_edited_kernel_is_marked_saved_as_a_new_file_and_a_comment_edit_keeps_the_profile() {
    let dir = crate::util::temp_dir();
    let kernel = dir.path().join("collatz.wgsl");
    let original = include_str!("../../assets/kernels/collatz.wgsl");
    std::fs::write(&kernel, original).unwrap();
    let mut app = DivlabApp::new(State {
        tab: Tab::Playground,
        ..State::default()
    });
    app.dialogs = divlab::app::files::DialogKind::Prompt;
    app.open_path(&kernel);
    let mut harness = harness_at(WINDOW, app);
    harness.run();
    harness.get_by_label("collatz.wgsl (edit here; checked as you type)");
    button(&harness, "Save").click();
    harness.run();
    assert!(
        !harness.state().asking(),
        "Save of an unedited kernel asked"
    );
    let (_, message) = harness.state().message.clone().expect("a message");
    assert!(message.starts_with("no edits to save"), "{message}");

    harness.state_mut().state.playground.settings.workgroups = [4, 1, 1];
    run_playground(&mut harness);
    let ran = last_profile(&harness);
    // A comment reworded: the profile stays, marked stale.
    let reworded = original.replace(
        "// The Collatz stopping time",
        "// Collatz: the stopping time",
    );
    harness.state_mut().state.playground.source = reworded.clone();
    harness.run();
    harness.get_by_label("• collatz.wgsl (modified; checked as you type)");
    harness.get_by_label_contains("Stale: comments changed since this run");
    let loop_line = line_of(&reworded, "while (n != 1u");
    harness
        .get_by_role_and_label(Role::Group, &format!("line {loop_line}"))
        .get_by_label(&executions(&ran, loop_line).to_string());
    // A code edit: the profile is of another kernel now.
    let edited = reworded.replace("10000u", "5000u");
    harness.state_mut().state.playground.source = edited.clone();
    harness.run();
    assert!(harness.query_by_label_contains("Stale: comments").is_none());
    harness.get_by_label_contains("Edited since the last run");

    // Save: a new file beside the opened one, which stays as it was.
    button(&harness, "Save").click();
    harness.run();
    let suggested = dir.path().join("collatz.edited.wgsl");
    let field = harness.get_by_label("Path:");
    assert_eq!(field.value().as_deref(), Some(suggested.to_str().unwrap()));
    button(&harness, "OK").click();
    harness.run();
    assert_eq!(std::fs::read_to_string(&suggested).unwrap(), edited);
    assert_eq!(std::fs::read_to_string(&kernel).unwrap(), original);
    harness.get_by_label("collatz.edited.wgsl (edit here; checked as you type)");
    // divlab wrote that one: an edit of it saves without a question.
    let again = edited.replace("5000u", "4000u");
    harness.state_mut().state.playground.source = again.clone();
    harness.run();
    button(&harness, "Save").click();
    harness.run();
    assert!(!harness.state().asking());
    assert_eq!(std::fs::read_to_string(&suggested).unwrap(), again);
    // (Naming the original asks before replacing it: app_kernels' save test.)

    // The mark survives a restart: the state keeps the file's text as saved.
    harness.state_mut().state.playground.source = edited.clone();
    harness.run();
    harness.get_by_label("• collatz.edited.wgsl (modified; checked as you type)");
    let json = serde_json::to_string(&harness.state().state.playground).unwrap();
    let restored: Playground = serde_json::from_str(&json).unwrap();
    assert!(restored.modified());
}

/// Ctrl+O opens the path prompt with its field taking the keyboard: what is typed next goes
/// into it (in place of the path it suggests), and Enter opens the file. Its title names what
/// it opens.
#[test]
fn the_open_prompt_takes_the_keyboard_and_names_profile_documents() {
    let dir = crate::util::temp_dir();
    let kernel = dir.path().join("collatz.wgsl");
    std::fs::write(&kernel, include_str!("../../assets/kernels/collatz.wgsl")).unwrap();
    let mut app = DivlabApp::new(State {
        tab: Tab::Playground,
        ..State::default()
    });
    app.dialogs = divlab::app::files::DialogKind::Prompt;
    let mut harness = harness_at(WINDOW, app);
    harness.run();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    harness.run();
    harness.get_by_label("Open a result or profile document (.json) or a kernel (.wgsl)");
    assert!(
        harness.get_by_label("Path:").is_focused(),
        "the field has no focus"
    );
    harness.event(egui::Event::Text(kernel.display().to_string()));
    harness.run();
    harness.key_press(egui::Key::Enter);
    harness.run();
    assert!(!harness.state().asking());
    assert_eq!(
        harness.state().playground().path.as_deref(),
        Some(kernel.as_path())
    );
    // Opened again, the prompt suggests that path, selected: what is typed replaces it.
    let other = dir.path().join("edges.wgsl");
    std::fs::write(&other, include_str!("../../assets/kernels/edges.wgsl")).unwrap();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    harness.run();
    harness.event(egui::Event::Text(other.display().to_string()));
    harness.run();
    harness.key_press(egui::Key::Enter);
    harness.run();
    assert!(!harness.state().asking(), "{:?}", harness.state().message);
    assert_eq!(
        harness.state().playground().path.as_deref(),
        Some(other.as_path())
    );
}

/// The message line under the file bar keeps its height with or without a message, so the
/// tabs (and all below them) stay where they are when one comes or goes.
#[test]
fn the_message_line_does_not_move_the_tabs() {
    let mut harness = playground_at(WINDOW);
    harness.run();
    let tab = |h: &Harness<'static, DivlabApp>| h.get_by_label("Playground").rect();
    let before = tab(&harness);
    for message in [
        "finished 1 experiment(s)".to_owned(),
        format!("a long error: {}", "the path does not exist; ".repeat(20)),
    ] {
        harness.state_mut().message = Some((true, message));
        harness.run();
        assert_eq!(tab(&harness), before, "a message moved the tabs");
    }
    harness.state_mut().message = None;
    harness.run();
    assert_eq!(tab(&harness), before);
}

/// After a run of a module's third entry point, the gutter shows that entry's lines, not the
/// module's first; and the branch table shows eight rows above the source at 1280 × 800.
#[test]
fn the_gutter_opens_at_the_entry_that_ran_and_the_branch_table_shows_eight_rows() {
    let mut source = String::from(
        "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n\n\
         @compute @workgroup_size(64)\n\
         fn reduce(@builtin(global_invocation_id) gid: vec3<u32>) {\n    data[gid.x] += 1u;\n}\n\n\
         @compute @workgroup_size(64)\n\
         fn scan(@builtin(global_invocation_id) gid: vec3<u32>) {\n    data[gid.x] += 2u;\n}\n",
    );
    // Far enough down that the first lines and the entry cannot show together.
    for i in 0..60 {
        source.push_str(&format!("// padding {i}\n"));
    }
    source.push_str(
        "@compute @workgroup_size(64)\n\
         fn downsweep(@builtin(local_invocation_index) i: u32) {\n    var x = 0u;\n",
    );
    for bit in 0..10 {
        source.push_str(&format!(
            "    if ((i >> {}u) & 1u) == 1u {{\n        x += {bit}u;\n    }}\n",
            bit % 6
        ));
    }
    source.push_str("    data[i] = x;\n}\n");
    let mut harness = playground_at(WINDOW);
    harness.state_mut().state.playground.source = source.clone();
    harness.run();
    harness.state_mut().state.playground.settings.entry = "downsweep".to_owned();
    run_playground(&mut harness);
    let ran = last_profile(&harness);
    assert_eq!(ran.kernel.entry, "downsweep");
    let entry = line_of(&source, "fn downsweep");
    harness.get_by_role_and_label(Role::Group, &format!("line {}", entry + 2));
    assert!(
        harness
            .query_by_role_and_label(Role::Group, "line 4")
            .is_none(),
        "the gutter opened at the module's first lines"
    );
    // The eight most wasteful branches' rows stand above the source's legend: in view.
    let legend = harness.get_by_label("efficiency:").rect();
    let mut branches = ran.branches.clone();
    branches.sort_by_key(|b| (std::cmp::Reverse(b.wasted_lane_slots), b.line));
    assert!(branches.len() >= 10);
    for b in &branches[..8] {
        let row = harness
            .get_by_role_and_label(Role::Link, &b.line.to_string())
            .rect();
        assert!(
            row.max.y <= legend.min.y,
            "line {}'s row is scrolled away",
            b.line
        );
    }
}

/// The map's outlines survive any scale: at each window size, a row of the image example's
/// map (8 × 8 workgroups, 64 × 64 invocations) shows a dark outline between every two
/// subgroups along it, as many as the subgroups the row crosses.
#[test]
fn the_dispatch_maps_outlines_survive_scaling_and_its_legend_shows_its_scale() {
    let mut harness = playground_at(WINDOW);
    pick_example(&mut harness, "Image threshold (texture in, texture out)");
    let source = harness.state().playground().source.clone();
    run_playground(&mut harness);
    let store = line_of(&source, "textureStore(dst");
    // As a click on the line does (the line may lie below the gutter's fold).
    let ctx = harness.ctx.clone();
    harness
        .state_mut()
        .state
        .playground
        .start_run_at(&ctx, None, Some(store));
    harness.step();
    wait_for_playground(&mut harness, "the lanes run");
    harness.get_by_label_contains("share of its subgroup's executions of the line");
    harness.get_by_label("0%");
    harness.get_by_label("100%");
    let width = harness
        .state()
        .playground()
        .profile()
        .unwrap()
        .subgroup_size
        .unwrap();
    // Lanes run along x within a workgroup's row of 8: a subgroup of 8 lanes or fewer takes
    // `width` cells of a row, a wider one whole rows.
    let boxes_per_row = 64 / width.min(8);
    for size in [WINDOW, [1024.0, 700.0], [1500.0, 1000.0], [1100.0, 760.0]] {
        harness.set_size(egui::vec2(size[0], size[1]));
        harness.run();
        let map = harness
            .get_by_label(&format!("dispatch map of line {store}"))
            .rect();
        let image = harness.render().expect("the harness renders");
        let scale = harness.ctx.pixels_per_point();
        let cell = map.height() / 64.0;
        // Through the middle of each row of cells: dark runs are outlines.
        for row in [0u32, 17, 63] {
            let y = ((map.min.y + cell * (row as f32 + 0.5)) * scale) as u32;
            let (x0, x1) = ((map.min.x * scale) as u32, (map.max.x * scale) as u32);
            let mut runs = 0;
            let mut dark = false;
            for x in x0..x1 {
                let [r, g, b, _] = image.get_pixel(x, y).0;
                let now = r.max(g).max(b) < 40;
                if now && !dark {
                    runs += 1;
                }
                dark = now;
            }
            assert_eq!(
                runs,
                boxes_per_row + 1,
                "{size:?}: row {row} of a map {} wide ({cell} points a cell)",
                map.width()
            );
        }
    }
}

/// Small things: the start page has only glyphs egui's default fonts draw; a long verdict
/// check wraps in its column at 1024 × 700 instead of being cut.
#[test]
fn the_start_page_draws_every_glyph_and_a_verdicts_check_is_not_cut() {
    let mut harness = harness_at([1024.0, 700.0], DivlabApp::new(State::default()));
    harness.step();
    let body = egui::TextStyle::Body.resolve(&harness.ctx.global_style());
    for line in divlab::app::start::WHERE_TO_BEGIN {
        assert!(
            harness.ctx.fonts_mut(|f| f.has_glyphs(&body, line)),
            "a glyph the default fonts lack: {line}"
        );
    }
    let doc = crate::app::showing("lavapipe-sg8.json", "scheduling.handshake");
    let mut harness = harness_at([1024.0, 700.0], doc);
    harness.state_mut().state.tab = Tab::Experiment;
    harness.run();
    let app = harness.state();
    let result = app
        .doc()
        .unwrap()
        .experiments
        .iter()
        .find(|e| e.id == "scheduling.handshake")
        .unwrap()
        .clone();
    let longest = result
        .verdicts
        .iter()
        .map(|v| v.check.as_str())
        .max_by_key(|c| c.len())
        .unwrap()
        .to_owned();
    let row = harness.ctx.global_style().text_styles[&egui::TextStyle::Body].size;
    let label = harness.get_by_label(&longest).rect();
    assert!(
        label.width() <= divlab::app::verdicts::CHECK_WIDTH + 1.0,
        "{label:?}"
    );
    // Longer than its column: it takes more than a line.
    let one_line = harness.ctx.fonts_mut(|f| {
        f.layout_no_wrap(longest.clone(), body.clone(), egui::Color32::WHITE)
            .size()
            .x
    });
    if one_line > divlab::app::verdicts::CHECK_WIDTH {
        assert!(label.height() > 1.5 * row, "cut to one line: {label:?}");
    }
}

/// Hovering a line's text (cut short at the pane's edge) gives the line's figures, not just
/// its text again.
#[test]
fn hovering_a_lines_text_gives_its_figures() {
    let mut harness = playground_at(WINDOW);
    pick_example(&mut harness, "Particle update (distance tests)");
    run_playground(&mut harness);
    let ran = last_profile(&harness);
    let source = ran.source.clone().unwrap();
    let line = line_of(&source, "p.vel = p.vel + (vec2<f32>(0.5, 0.5)");
    harness
        .get_by_role_and_label(Role::Group, &format!("line {line}"))
        .get_by_label_contains("p.vel = p.vel")
        .hover();
    harness.run();
    harness.get_by_label(&format!("executions: {}", executions(&ran, line)));
}

/// The notes say how the counts were taken and what may make them wrong; opened, they get more
/// than the third of the pane the folded sections share, so they can be read whole, and the
/// branch table moves down by what they need.
#[test]
fn opened_notes_and_inputs_get_more_than_the_folded_third_of_the_pane() {
    use divlab::app::profile_view::{FOLDED_SHARE, OPENED_SHARE};
    let _gpu = crate::util::gpu_shared();
    let mut harness = playground_at(WINDOW);
    pick_example(&mut harness, COLLATZ);
    run_playground(&mut harness);
    let branches = |h: &Harness<'static, DivlabApp>| {
        (h.get_by_label("Branches and loops, by wasted lane slots")
            .rect())
        .top()
    };
    // The area above the source starts below the pane's toolbar.
    let top = harness.get_by_label("Save profile…").rect().bottom();
    let pane = WINDOW[1] - top;
    let folded = branches(&harness);
    assert!(folded - top <= FOLDED_SHARE * pane + 8.0, "{folded} {top}");
    harness.get_by_label_contains("Notes (").click();
    harness.run();
    harness.get_by_label_contains("Inputs (").click();
    harness.run();
    harness.run();
    let opened = branches(&harness);
    assert!(
        opened - top > FOLDED_SHARE * pane + 8.0 && opened - top <= OPENED_SHARE * pane + 8.0,
        "opened, the notes and inputs end at {opened} (the area from {top}, the pane {pane} high)"
    );
}
