//! `DIVLAB_FRAME_STATS=N`: the app repaints continuously for N frames, then prints what a frame
//! costs to stderr. With continuous repaint the time between two frame starts is the whole frame:
//! the app's own code, tessellation, the renderer and the present. Used to measure the app on a
//! CPU adapter (lavapipe under Xvfb), where every frame competes with the experiments.

use std::time::Duration;

/// Frame intervals and the app code's share of them.
#[derive(Debug)]
pub struct FrameStats {
    frames: usize,
    /// Seconds between frame starts.
    intervals: Vec<f32>,
    /// Seconds spent in the app's `ui` (eframe's `cpu_usage`).
    app: Vec<f32>,
}

impl FrameStats {
    /// From `DIVLAB_FRAME_STATS`, when it holds a frame count.
    pub fn from_env() -> Option<Self> {
        let frames = std::env::var("DIVLAB_FRAME_STATS").ok()?.parse().ok()?;
        Some(Self {
            frames,
            intervals: Vec::new(),
            app: Vec::new(),
        })
    }

    /// Records one frame; asks for the next until `frames` are in, then prints the summary once.
    pub fn record(&mut self, ctx: &eframe::egui::Context, cpu_usage: Option<f32>) {
        if self.intervals.len() > self.frames {
            return;
        }
        // The first frames include start-up (fonts, pipelines): not a steady frame.
        self.intervals.push(ctx.input(|i| i.unstable_dt));
        self.app.extend(cpu_usage);
        if self.intervals.len() <= self.frames {
            ctx.request_repaint();
            return;
        }
        let skip = self.intervals.len().min(5);
        eprintln!(
            "frame stats over {} frames: interval median {} p90 {}; app code median {}",
            self.intervals.len() - skip,
            ms(quantile(&self.intervals[skip..], 0.5)),
            ms(quantile(&self.intervals[skip..], 0.9)),
            ms(quantile(&self.app[self.app.len().min(skip)..], 0.5)),
        );
    }
}

fn quantile(values: &[f32], q: f32) -> f32 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f32::total_cmp);
    sorted
        .get(((sorted.len() as f32 - 1.0) * q).round() as usize)
        .copied()
        .unwrap_or(f32::NAN)
}

fn ms(seconds: f32) -> String {
    format!(
        "{:.1} ms",
        Duration::from_secs_f32(seconds.max(0.0)).as_secs_f64() * 1e3
    )
}
