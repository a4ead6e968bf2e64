//! What the app's benches share: a window's frames run headless, egui's frame plus
//! tessellation timed, the pointer moving so each frame also handles a hover.

use std::time::{Duration, Instant};

use eframe::egui;

/// Frames timed after the warm-up.
pub const FRAMES: usize = 200;

/// Frames run before timing starts (the first builds the textures).
const WARM_UP: usize = 10;

/// What a run of frames cost.
pub struct FrameTimes {
    /// Sorted, one per timed frame.
    times: Vec<Duration>,
    /// The first frame, which builds what the view caches.
    pub first: Duration,
    /// Clipped primitives of the last frame.
    pub primitives: usize,
}

impl FrameTimes {
    /// `median …, p95 …, max … ms per frame`.
    pub fn summary(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let t = &self.times;
        format!(
            "{FRAMES} frames: median {:.3} ms, p95 {:.3} ms, max {:.3} ms per frame",
            ms(t[t.len() / 2]),
            ms(t[t.len() * 95 / 100]),
            ms(t[t.len() - 1])
        )
    }
}

/// Runs `FRAMES` timed frames of `view` in a 1400 × 1200 window, the pointer at
/// `pointer(frame)`. Texture uploads are dropped: there is no renderer.
pub fn time_frames(
    pointer: impl Fn(usize) -> egui::Pos2,
    mut view: impl FnMut(&mut egui::Ui),
) -> FrameTimes {
    let ctx = egui::Context::default();
    let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1400.0, 1200.0));
    let mut out = FrameTimes {
        times: Vec::with_capacity(FRAMES),
        first: Duration::ZERO,
        primitives: 0,
    };
    for frame in 0..FRAMES + WARM_UP {
        let input = egui::RawInput {
            screen_rect: Some(screen),
            events: vec![egui::Event::PointerMoved(pointer(frame))],
            ..Default::default()
        };
        let start = Instant::now();
        let output = ctx.run_ui(input, |ui| {
            egui::CentralPanel::default().show(ui, |ui| view(ui));
        });
        let mut textures = output.textures_delta;
        textures.clear();
        let meshes = ctx.tessellate(output.shapes, output.pixels_per_point);
        out.primitives = meshes.len();
        std::hint::black_box(meshes);
        let elapsed = start.elapsed();
        if frame == 0 {
            out.first = elapsed;
        } else if frame >= WARM_UP {
            out.times.push(elapsed);
        }
    }
    out.times.sort();
    out
}
