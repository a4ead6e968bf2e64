//! Frame time of the lane grid, CPU side: egui's frame plus tessellation into meshes, which is
//! what the app pays each frame before the GPU draws. Two sizes: 32,768 cells (512 subgroups x
//! 64 lanes) and a whole dispatch of 1,048,576 lanes (16,384 x 64); each drawn two ways: as the
//! app draws it (18-point cells with borders and labels, in a scroll area) and as an overview
//! (2-point cells, every row on screen). The textures are uploaded once, as in the app, and that
//! one-time cost is printed apart. Run with `cargo bench --bench lane_grid`.

use std::time::{Duration, Instant};

use divlab::app::lane_grid::{LaneCache, LaneGrid, synthetic_records};
use divlab::report::LaneRecord;
use eframe::egui;

const LANES: u32 = 64;
const FRAMES: usize = 200;

fn main() {
    for subgroups in [512, 16_384] {
        let records = synthetic_records(subgroups, LANES, 4);
        for (view, max_cell) in [("app view", 18.0), ("overview", 2.0)] {
            bench(&records, view, max_cell);
        }
    }
}

fn bench(records: &[LaneRecord], view: &str, max_cell: f32) {
    let ctx = egui::Context::default();
    let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1400.0, 1200.0));
    let mut cache = LaneCache::new(records);
    let mut times = Vec::with_capacity(FRAMES);
    let mut first = Duration::ZERO;
    let mut cells = 0;
    let mut primitives = 0;
    for frame in 0..FRAMES + 10 {
        let input = egui::RawInput {
            screen_rect: Some(screen),
            events: vec![egui::Event::PointerMoved(egui::pos2(
                300.0 + (frame % 50) as f32,
                400.0,
            ))],
            ..Default::default()
        };
        let start = Instant::now();
        let output = ctx.run_ui(input, |ui| {
            egui::CentralPanel::default().show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    let grid = LaneGrid::cached(records, 0, &mut cache).max_cell(max_cell);
                    cells = grid.cell_count();
                    grid.show(ui);
                });
            });
        });
        // No renderer here: texture uploads are dropped on purpose.
        let mut textures = output.textures_delta;
        textures.clear();
        let meshes = ctx.tessellate(output.shapes, output.pixels_per_point);
        primitives = meshes.len();
        std::hint::black_box(meshes);
        let elapsed = start.elapsed();
        if frame == 0 {
            first = elapsed;
        } else if frame >= 10 {
            times.push(elapsed);
        }
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "lane_grid {view}: {cells} cells, {primitives} clipped primitives, {FRAMES} frames: \
         median {:.3} ms, p95 {:.3} ms, max {:.3} ms per frame; first frame (builds the \
         textures) {:.1} ms",
        ms(times[times.len() / 2]),
        ms(times[times.len() * 95 / 100]),
        ms(times[times.len() - 1]),
        ms(first),
    );
}
