//! The app on image and grid kernels: textures as pictures, the dispatch map of a line's lanes,
//! loops whose figures add up, two profiles side by side, and Cancel during a long dispatch.
//! Every run is real, on the default adapter (lavapipe in CI), driven through the app as a user
//! would.

use std::collections::HashMap;
use std::time::Duration;

use divlab::app::DivlabApp;
use divlab::app::dispatch_map::{CellState, OUTLINE};
use divlab::profile::run::TextureImage;
use eframe::egui::{Color32, accesskit::Role};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;

use crate::app::{button, last_profile, line_of, pick_example, run_playground, step_until};

/// The Playground, in a window tall enough for the pictures, the maps and the source at once.
pub(crate) fn tall_playground() -> Harness<'static, DivlabApp> {
    crate::app::playground_at([1400.0, 1500.0])
}

const THRESHOLD: &str = "Image threshold (texture in, texture out)";

/// Clicks the source text of `line` and waits for the run that records its lanes.
fn record_lanes_at(harness: &mut Harness<'static, DivlabApp>, line: u32, text: &str) {
    harness
        .get_by_role_and_label(Role::Group, &format!("line {line}"))
        .get_by_label_contains(text)
        .click();
    harness.step();
    crate::app::wait_for_playground(harness, "the lanes run");
}

fn picture<'a>(images: &'a [TextureImage], name: &str) -> &'a TextureImage {
    images
        .iter()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("no picture of `{name}`"))
}

fn texel(image: &TextureImage, x: u32, y: u32) -> [u8; 4] {
    let i = (y * image.size[0] + x) as usize * 4;
    image.rgba[i..i + 4].try_into().unwrap()
}

/// The image example reads a texture and branches on each pixel's value. Both textures show as
/// pictures, the written one holds what the branch wrote, and the dispatch map of the branch's
/// line marks exactly the pixels that satisfy the condition, invocation by invocation.
#[test]
fn an_image_kernel_shows_its_textures_and_a_dispatch_map_of_the_pixels_that_branch() {
    let mut harness = tall_playground();
    pick_example(&mut harness, THRESHOLD);
    let source = harness.state().playground().source.clone();
    run_playground(&mut harness);
    // Both pictures, by their titles.
    harness.get_by_label("open `src` (@group(0) @binding(0)) · input · 64 × 64");
    harness.get_by_label("open `dst` (@group(0) @binding(1)) · written · 64 × 64");
    let images = harness.state().playground().pictures().images().to_vec();
    let (src, dst) = (picture(&images, "src"), picture(&images, "dst"));
    // `if (c.r > c.g)`: red and green are the same function of their bytes, so the bytes
    // decide it exactly.
    let takes = |x: u32, y: u32| {
        let [r, g, _, _] = texel(src, x, y);
        r > g
    };
    // The written picture: blue 0.1 where the branch ran, 0.3 where it did not.
    for y in 0..64 {
        for x in 0..64 {
            let blue = texel(dst, x, y)[2];
            assert_eq!(blue < 52, takes(x, y), "dst at ({x}, {y}) has blue {blue}");
        }
    }

    let body = line_of(&source, "let l = dot");
    record_lanes_at(&mut harness, body, "let l = dot");
    harness.get_by_label_contains(&format!("Dispatch map of line {body}: 64 × 64 invocations"));
    let app = harness.state();
    let map = app.playground().dispatch_map().expect("a dispatch map");
    assert_eq!(map.size, [64, 64, 1]);
    assert!(!map.truncated, "every execution was recorded");
    let mut idle = 0;
    for y in 0..64 {
        for x in 0..64 {
            let (state, _) = map.cell([x, y, 0]).unwrap();
            if takes(x, y) {
                assert_eq!(state, CellState::Ran, "({x}, {y}) took the branch");
            } else {
                assert!(
                    matches!(state, CellState::Idle | CellState::NotReached),
                    "({x}, {y}) did not take the branch, yet shows {state:?}"
                );
                idle += u32::from(state == CellState::Idle);
            }
        }
    }
    // The diagonal cuts subgroups: some lanes sat idle beside ones that ran.
    assert!(idle > 0, "no subgroup straddles the diagonal");
}

/// In an 8×8 workgroup the map's subgroups are the lane records' own: the invocations of one
/// record share a subgroup, two records of different subgroups never do, and an outline runs
/// between two neighbouring cells exactly where their subgroups differ.
#[test]
fn an_8x8_workgroup_map_outlines_subgroups_as_the_lane_records_give_them() {
    let mut harness = tall_playground();
    pick_example(&mut harness, THRESHOLD);
    let source = harness.state().playground().source.clone();
    run_playground(&mut harness);
    let store = line_of(&source, "textureStore(dst");
    record_lanes_at(&mut harness, store, "textureStore(dst");
    let profile = last_profile(&harness);
    let capture = profile.lanes.as_ref().expect("lanes recorded");
    // Each invocation's subgroup by the records: (workgroup, the record's first local index).
    let mut by_records: HashMap<[u32; 2], ([u32; 3], u32)> = HashMap::new();
    for record in &capture.records {
        let lanes = record
            .invocations
            .as_ref()
            .expect("a 2-D workgroup's invocations");
        assert_eq!(
            lanes.len() as u32,
            profile.subgroup_size.unwrap(),
            "every lane stores"
        );
        for lane in lanes {
            let global = [
                record.workgroup[0] * 8 + lane.local_id[0],
                record.workgroup[1] * 8 + lane.local_id[1],
            ];
            let previous = by_records.insert(global, (record.workgroup, record.first_local_index));
            assert!(previous.is_none(), "{global:?} is in one record only");
        }
    }
    assert_eq!(by_records.len(), 64 * 64);
    let app = harness.state();
    let map = app.playground().dispatch_map().expect("a dispatch map");
    let subgroup = |x: u32, y: u32| map.cell([x, y, 0]).unwrap().1.expect("reached");
    let mut map_of_records: HashMap<([u32; 3], u32), usize> = HashMap::new();
    for (&[x, y], key) in &by_records {
        let id = *map_of_records.entry(*key).or_insert(subgroup(x, y));
        assert_eq!(id, subgroup(x, y), "({x}, {y}) is in its record's subgroup");
    }
    let distinct: std::collections::HashSet<usize> = map_of_records.values().copied().collect();
    assert_eq!(
        distinct.len(),
        map_of_records.len(),
        "one map subgroup per record"
    );

    let image = map.image(0, None);
    let k = map.texels_per_cell() as usize;
    assert!(k >= 4, "cells large enough to outline ({k} texels)");
    let at = |px: usize, py: usize| image.pixels[py * image.size[0] + px];
    for y in 0..64u32 {
        for x in 0..63u32 {
            let differs = by_records[&[x, y]] != by_records[&[x + 1, y]];
            // The last texel column of cell (x, y), halfway down.
            let edge = at(x as usize * k + k - 1, y as usize * k + k / 2);
            assert_eq!(
                edge == OUTLINE,
                differs,
                "between ({x}, {y}) and ({}, {y})",
                x + 1
            );
        }
    }
    for y in 0..63u32 {
        for x in 0..64u32 {
            let differs = by_records[&[x, y]] != by_records[&[x, y + 1]];
            let edge = at(x as usize * k + k / 2, y as usize * k + k - 1);
            assert_eq!(
                edge == OUTLINE,
                differs,
                "between ({x}, {y}) and ({x}, {})",
                y + 1
            );
        }
    }
    // The middle of a cell is its colour, never an outline.
    assert_ne!(at(k / 2, k / 2), OUTLINE);
    assert_ne!(at(k / 2, k / 2), Color32::TRANSPARENT);
}

/// Collatz's loop row and its line agree: the row's trips are the executions of the body's
/// first line, and the lane slots it calls idle are exactly those trips' slots less the lanes
/// that ran them.
#[test]
fn collatzs_loop_row_shows_figures_that_agree_with_its_gutter() {
    let mut harness = tall_playground();
    let (before, after) = crate::app_fit::pinned_then_edited(&mut harness);
    harness.get_by_label_contains("Two versions of collatz.wgsl");
    let app = harness.state();
    assert_eq!(app.playground().pinned(), Some(&before));
    assert_ne!(before.lines, after.lines, "the edit changed the profile");
    let adapter = &after.adapter.name;
    harness.get_by_label(&format!(
        "pinned: control-flow efficiency {:.1}% · collatz.wgsl on {adapter}",
        before.control_flow_efficiency.unwrap() * 100.0
    ));
    harness.get_by_label(&format!(
        "this run: control-flow efficiency {:.1}% · collatz.wgsl on {adapter}",
        after.control_flow_efficiency.unwrap() * 100.0
    ));
}

/// The data a profile ran on shows beside it: each buffer's fill, said to be the default where
/// it was, and its first values as the kernel read them.
#[test]
fn a_profile_shows_each_buffers_fill_and_first_values() {
    let mut harness = tall_playground();
    pick_example(&mut harness, "Bounds-checked element-wise");
    harness.state_mut().state.playground.settings.buffers = "input=iota".to_owned();
    harness.run();
    run_playground(&mut harness);
    // Folded by default, so the source keeps the room; opened, every fill and its values.
    harness
        .get_by_label("Inputs (2): what the kernel ran on")
        .click();
    harness.run();
    harness.get_by_label("`input` (@group(0) @binding(0)): iota");
    // `array<f32>` counted up from 0, eight values shown.
    harness.get_by_label("0, 1, 2, 3, 4, 5, 6, 7, …");
    harness.get_by_label_contains("`output` (@group(0) @binding(1)): random:");
    harness.get_by_label_contains("(default)");
}

/// What the engine cannot bind fails the run with the CLI's words, naming the binding and its
/// line, and the Playground marks that line.
#[test]
fn a_binding_the_engine_cannot_make_is_named_with_its_line() {
    let mut harness = tall_playground();
    harness.run();
    let source = "@group(0) @binding(0) var out: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(1) var video: texture_external;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    textureStore(out, gid.xy, textureLoad(video, gid.xy));
}
";
    harness.state_mut().state.playground.source = source.to_owned();
    harness.run();
    run_playground(&mut harness);
    let last = harness.state().playground().last.as_ref().expect("a run");
    let error = last
        .outcome
        .as_ref()
        .expect_err("texture_external cannot be made");
    assert_eq!(error.line, 2, "{}", error.message);
    harness.get_by_label_contains(
        "`video` (@group(0) @binding(1), line 2 of playground.wgsl) is a `texture_external`",
    );
}

/// In the Playground, Save As writes the kernel back to its file, asking first since divlab did
/// not write it; Save profile… and a picture's Save PNG… write what the run made.
#[test]
fn the_playground_saves_its_kernel_its_profile_and_its_pictures() {
    use crate::app::{button, type_path};
    let dir = crate::util::temp_dir();
    let kernel = dir.path().join("threshold.wgsl");
    let original = include_str!("../../assets/kernels/threshold.wgsl");
    std::fs::write(&kernel, original).unwrap();
    let mut harness = tall_playground();
    harness.state_mut().dialogs = divlab::app::files::DialogKind::Prompt;
    harness.state_mut().open_path(&kernel);
    harness.run();
    harness.state_mut().state.playground.settings.textures = "texture src=gradient".to_owned();
    harness.state_mut().state.playground.settings.workgroups = [8, 8, 1];
    let edited = original.replace("0.1, 0.1, 0.3", "0.0, 0.0, 0.5");
    harness.state_mut().state.playground.source = edited.clone();
    harness.run();

    // Save As onto the file it came from asks first, then replaces it.
    button(&harness, "Save As…").click();
    harness.run();
    type_path(&mut harness, &kernel.display().to_string());
    button(&harness, "OK").click();
    harness.run();
    harness.get_by_label("Replace the file?");
    assert_eq!(std::fs::read_to_string(&kernel).unwrap(), original);
    button(&harness, "Replace").click();
    harness.run();
    assert_eq!(std::fs::read_to_string(&kernel).unwrap(), edited);
    // divlab wrote it now: Save asks no more.
    button(&harness, "Save").click();
    harness.run();
    assert!(!harness.state().asking());

    run_playground(&mut harness);
    button(&harness, "Save profile…").click();
    harness.run();
    let json = dir.path().join("threshold.profile.json");
    type_path(&mut harness, &json.display().to_string());
    button(&harness, "OK").click();
    harness.run();
    let saved = divlab::profile::report::read_profile(&json).expect("a profile document");
    assert_eq!(Some(&saved), harness.state().playground().profile());
    assert_eq!(saved.source.as_deref(), Some(edited.as_str()));

    // The written picture, opened large, saved as PNG: the same pixels.
    harness
        .get_by_label_contains("open `dst` (@group(0) @binding(1)) · written")
        .click();
    harness.run();
    button(&harness, "Save PNG…").click();
    harness.run();
    let png = dir.path().join("dst.png");
    type_path(&mut harness, &png.display().to_string());
    button(&harness, "OK").click();
    harness.run();
    let image = image::open(&png).expect("a PNG").to_rgba8();
    let shown = picture(harness.state().playground().pictures().images(), "dst");
    assert_eq!(image.dimensions(), (64, 64));
    assert_eq!(image.into_raw(), shown.rgba);
}

/// Each invocation loops `params.trips` times: with 60,000 trips and 1,024 workgroups, one
/// dispatch of 3.9 billion trips, seconds on lavapipe.
const SLOW: &str = "struct Params { trips: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var x = gid.x;
    for (var i = 0u; i < params.trips; i++) {
        x = x * 1664525u + 1013904223u;
    }
    out[gid.x] = x;
}
";

/// Cancel frees the Playground at once, though the run's thread is inside one long dispatch
/// (or a compile), which nothing can interrupt: the run shows as cancelled, the editor can run
/// again, and the cancelled thread ends on its own at its next check.
#[test]
fn cancel_frees_the_playground_at_once_and_the_cancelled_run_ends_on_its_own() {
    let mut harness = tall_playground();
    harness.run();
    let playground = &mut harness.state_mut().state.playground;
    playground.source = SLOW.to_owned();
    playground.settings.workgroups = [1024, 1, 1];
    playground.settings.buffers = "params=values:60000".to_owned();
    harness.run();
    button(&harness, "Run").click();
    harness.step();
    // Into the counted dispatch: the device and the compile take well under a second.
    let start = std::time::Instant::now();
    step_until(&mut harness, Duration::from_secs(5), "a second", |_| {
        start.elapsed() > Duration::from_secs(1)
    });
    assert!(
        harness.state().playground().running(),
        "the run ended too soon"
    );
    button(&harness, "Cancel").click();
    harness.step();
    let playground = harness.state().playground();
    assert!(!playground.running(), "Cancel waits for the worker");
    assert!(
        playground.cancelled_still_busy(),
        "the dispatch ended first"
    );
    let last = playground.last.as_ref().expect("the cancelled run");
    let error = last.outcome.as_ref().expect_err("cancelled");
    assert_eq!(error.message, "the run of playground.wgsl was cancelled");
    harness.run();
    harness.get_by_label_contains("a cancelled run is finishing its driver call");
    step_until(
        &mut harness,
        Duration::from_secs(120),
        "the cancelled run",
        |app| !app.playground().cancelled_still_busy(),
    );
    let settings = &mut harness.state_mut().state.playground.settings;
    (settings.workgroups, settings.buffers) = ([1, 1, 1], "params=values:10".to_owned());
    harness.run();
    run_playground(&mut harness);
    let last = harness.state().playground().last.as_ref().expect("a run");
    assert!(last.outcome.is_ok(), "{:?}", last.outcome.as_ref().err());
}
