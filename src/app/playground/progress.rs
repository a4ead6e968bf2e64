//! What the Playground shows while a run is in progress: the profile's stage and how long it has
//! been in it, and, where the compile (or llvmpipe's first run, which compiles) runs long, that
//! counting per invocation compiles lighter.

use std::time::{Duration, Instant};

use eframe::egui;

use crate::profile::run::{Counts, DEFAULT_TIME_BUDGET, Stage};

/// How long the compile may run before the line suggests counting per invocation: longer than
/// any compile of the test kernels on lavapipe, far shorter than the minutes a kernel of many
/// helpers called from loops took on NVIDIA (docs/findings.md).
pub const LONG_COMPILE: Duration = Duration::from_secs(20);

/// The stage a run is in, and since when.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub stage: Stage,
    pub since: Instant,
}

impl Progress {
    /// `stage`, starting now.
    pub fn new(stage: Stage) -> Self {
        let since = Instant::now();
        Self { stage, since }
    }
}

/// The progress line for `stage` (`None` before the first), `elapsed` into it, and the hint
/// where a compile counted per subgroup (`counts`) has run past [`LONG_COMPILE`].
pub fn progress_line(
    stage: Option<Stage>,
    elapsed: Duration,
    counts: Counts,
    time_budget: Duration,
) -> (String, Option<&'static str>) {
    let Some(stage) = stage else {
        return ("opening the adapter".to_owned(), None);
    };
    let line = format!(
        "{} · {} s; the editor stays usable",
        stage.doing(time_budget),
        elapsed.as_secs()
    );
    // llvmpipe compiles a pipeline at its first run: the counted run is where it waits.
    let compiling = matches!(stage, Stage::Preparing | Stage::Counting);
    let long = compiling && counts == Counts::Subgroups && elapsed >= LONG_COMPILE;
    let hint = long.then_some("taking long? try Run settings › counts › per invocation");
    (line, hint)
}

/// The progress line of a run in progress, repainted each second so its seconds move (a
/// spinner would repaint every frame, taking cycles from a kernel on a CPU device). The
/// Playground's runs time within the default budget.
pub fn show(ui: &mut egui::Ui, progress: Option<Progress>, counts: Counts) {
    let elapsed = progress.map_or(Duration::ZERO, |p| p.since.elapsed());
    let stage = progress.map(|p| p.stage);
    let (line, hint) = progress_line(stage, elapsed, counts, DEFAULT_TIME_BUDGET);
    ui.weak(line);
    if let Some(hint) = hint {
        ui.label(egui::RichText::new(hint).color(ui.visuals().warn_fg_color))
            .on_hover_text(
                "A driver compiles the counters' subgroup operations into every call of a helper \
                 (llvmpipe at the kernel's first run), which takes minutes on a kernel of many \
                 helpers called from loops. Counted per invocation, the counters have none, so \
                 the kernel compiles lighter, and each line counts its invocations, without \
                 divergence. Cancel, pick it, and Run",
            );
    }
    ui.ctx().request_repaint_after(Duration::from_secs(1));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_stage_and_a_long_compile_per_subgroup_gets_the_hint() {
        let budget = Duration::from_secs(5);
        let at = |stage, seconds, counts| {
            progress_line(stage, Duration::from_secs(seconds), counts, budget)
        };
        assert_eq!(at(None, 0, Counts::Subgroups).0, "opening the adapter");
        let (line, hint) = at(Some(Stage::Preparing), 3, Counts::Subgroups);
        assert_eq!(
            line,
            "instrumenting and compiling · 3 s; the editor stays usable"
        );
        assert_eq!(hint, None);
        for stage in [Stage::Preparing, Stage::Counting] {
            let (_, hint) = at(Some(stage), 20, Counts::Subgroups);
            assert!(
                hint.is_some_and(|h| h.contains("per invocation")),
                "{hint:?}"
            );
        }
        // Already counted per invocation, or past the compile: nothing to suggest.
        assert_eq!(at(Some(Stage::Preparing), 60, Counts::Invocations).1, None);
        let timing = Some(Stage::Timing { done: 2, of: 15 });
        let (line, hint) = at(timing, 60, Counts::Subgroups);
        assert_eq!(
            line,
            "timing: 2 runs (at most 15, within 5 s) · 60 s; the editor stays usable"
        );
        assert_eq!(hint, None);
    }
}
