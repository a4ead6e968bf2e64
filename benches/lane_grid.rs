//! Frame time of the lane grid, CPU side: egui's frame plus tessellation into meshes, which is
//! what the app pays each frame before the GPU draws. Two sizes: 32,768 cells (512 subgroups x
//! 64 lanes) and a whole dispatch of 1,048,576 lanes (16,384 x 64); each drawn two ways: as the
//! app draws it (18-point cells with borders and labels, in a scroll area) and as an overview
//! (2-point cells, every row on screen). The textures are uploaded once, as in the app, and that
//! one-time cost is printed apart. Run with `cargo bench --bench lane_grid`.

use divlab::app::lane_grid::{LaneCache, LaneGrid, synthetic_records};
use divlab::report::LaneRecord;
use eframe::egui;
use frames::time_frames;

#[path = "support/frames.rs"]
mod frames;

const LANES: u32 = 64;

fn main() {
    for subgroups in [512, 16_384] {
        let records = synthetic_records(subgroups, LANES, 4);
        for (view, max_cell) in [("app view", 18.0), ("overview", 2.0)] {
            bench(&records, view, max_cell);
        }
    }
}

fn bench(records: &[LaneRecord], view: &str, max_cell: f32) {
    let mut cache = LaneCache::new(records);
    let mut cells = 0;
    let frames = time_frames(
        |frame| egui::pos2(300.0 + (frame % 50) as f32, 400.0),
        |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                let grid = LaneGrid::cached(records, 0, &mut cache).max_cell(max_cell);
                cells = grid.cell_count();
                grid.show(ui);
            });
        },
    );
    println!(
        "lane_grid {view}: {cells} cells, {} clipped primitives, {}; first frame (builds the \
         textures) {:.1} ms",
        frames.primitives,
        frames.summary(),
        frames.first.as_secs_f64() * 1e3,
    );
}
