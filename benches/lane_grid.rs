//! Frame time of the lane grid with 32,768 cells (512 subgroups × 64 lanes), CPU side: egui's
//! frame (layout and one rect shape per cell) plus tessellation into meshes, which is what the
//! app pays each frame before the GPU draws. Run with `cargo bench --bench lane_grid`.

use std::time::{Duration, Instant};

use divlab::app::lane_grid::{LaneGrid, synthetic_records};
use eframe::egui;

const SUBGROUPS: u32 = 512;
const LANES: u32 = 64;
const FRAMES: usize = 200;

fn main() {
    let records = synthetic_records(SUBGROUPS, LANES, 4);
    let ctx = egui::Context::default();
    // Tall enough that every row is visible: nothing is culled.
    let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1400.0, 1200.0));
    let mut times = Vec::with_capacity(FRAMES);
    let mut ui_times = Vec::with_capacity(FRAMES);
    let mut cells = 0;
    let mut shapes = 0;
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
                let grid = LaneGrid::new(&records, 0).max_cell(2.0);
                cells = grid.cell_count();
                grid.show(ui);
            });
        });
        let ui_time = start.elapsed();
        shapes = output.shapes.len();
        // No renderer here: the font atlas uploads are dropped on purpose.
        let mut textures = output.textures_delta;
        textures.clear();
        let meshes = ctx.tessellate(output.shapes, output.pixels_per_point);
        std::hint::black_box(meshes);
        if frame >= 10 {
            times.push(start.elapsed());
            ui_times.push(ui_time);
        }
    }
    times.sort();
    ui_times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    println!(
        "lane_grid: {cells} cells, {shapes} shapes, {FRAMES} frames: median {:.2} ms (of which egui frame {:.2} ms, the rest tessellation), mean {:.2} ms, p95 {:.2} ms, max {:.2} ms per frame",
        ms(times[times.len() / 2]),
        ms(ui_times[ui_times.len() / 2]),
        ms(mean),
        ms(times[times.len() * 95 / 100]),
        ms(times[times.len() - 1]),
    );
}
