//! Frame time of the dispatch map, CPU side: egui's frame plus tessellation, what the app pays
//! each frame before the GPU draws. A 1024 × 1024 dispatch (workgroups of 64 in x, subgroups of
//! 32 lanes: 32,768 lane records, the lanes left of a diagonal active), with the pointer moving
//! over it so each frame also words a hovered cell. Building the map and its texture happens
//! once, on the first frame, and is printed apart. Run with `cargo bench --bench dispatch_map`.

use std::time::Instant;

use divlab::app::dispatch_map::{DispatchMap, Shape};
use divlab::profile::report::LaneExecution;
use eframe::egui;
use frames::time_frames;

#[path = "support/frames.rs"]
mod frames;

const SIDE: u32 = 1024;
const LANES: u32 = 32;

/// One record per subgroup: lanes with x + y < SIDE active.
fn records() -> Vec<LaneExecution> {
    let mut records = Vec::new();
    for y in 0..SIDE {
        for wx in 0..SIDE / 64 {
            for half in 0..2 {
                let first_x = wx * 64 + half * LANES;
                let mask = (0..LANES)
                    .filter(|l| first_x + l + y < SIDE)
                    .fold(0u32, |m, l| m | 1 << l);
                if mask == 0 {
                    continue;
                }
                records.push(LaneExecution {
                    ballot: [mask, 0, 0, 0],
                    workgroup: [wx, y, 0],
                    first_local_index: half * LANES + mask.trailing_zeros(),
                    invocations: None,
                    invocations_complete: None,
                });
            }
        }
    }
    records
}

fn main() {
    let records = records();
    let shape = Shape {
        workgroup_size: [64, 1, 1],
        dispatch: [SIDE / 64, SIDE, 1],
        subgroup_size: LANES,
    };
    let built = Instant::now();
    let mut map = DispatchMap::from_records(7, shape, &records, records.len() as u64)
        .expect("a dispatch to map");
    let build = built.elapsed();
    let frames = time_frames(
        |frame| egui::pos2(100.0 + (frame % 200) as f32, 200.0 + (frame % 100) as f32),
        |ui| map.ui(ui, &[]),
    );
    println!(
        "dispatch_map: {SIDE} × {SIDE} invocations, {} records, {}; building the map {:.1} ms, \
         first frame (builds the texture) {:.1} ms",
        records.len(),
        frames.summary(),
        build.as_secs_f64() * 1e3,
        frames.first.as_secs_f64() * 1e3,
    );
}
