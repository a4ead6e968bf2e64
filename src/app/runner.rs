//! The experiment run in progress: its worker, how far it is, and the controls every view
//! shows for it (Cancel, the progress bar, what a run costs).

use eframe::egui;

use super::worker::{Worker, WorkerEvent};
use super::{Command, State};
use crate::experiments::RunConfig;
use crate::gpu::AdapterSelector;

/// A run's progress as the UI shows it.
#[derive(Clone, Debug, Default)]
struct Progress {
    index: usize,
    total: usize,
    id: String,
    fraction: f64,
}

/// The worker of the run in progress, if any, and its progress.
#[derive(Default)]
pub struct Runner {
    worker: Option<Worker>,
    progress: Progress,
}

impl Runner {
    /// Whether a run is in progress.
    pub fn running(&self) -> bool {
        self.worker.is_some()
    }

    /// Starts running `ids` with `state`'s adapter and settings, unless a run is in progress.
    pub fn start(&mut self, ctx: &egui::Context, state: &State, ids: Vec<String>) -> bool {
        if self.worker.is_some() {
            return false;
        }
        let selector = AdapterSelector {
            backend: None,
            adapter: state.adapter.map(|i| i.to_string()),
        };
        let config = RunConfig {
            quick: state.quick,
            reps: (state.reps > 0).then_some(state.reps),
            fuzz_seeds: None,
        };
        self.progress = Progress::default();
        self.worker = Some(Worker::start(ctx.clone(), selector, config, ids));
        true
    }

    /// Cancels the run in progress; it stops within one GPU submission.
    pub fn cancel(&self) {
        if let Some(worker) = &self.worker {
            worker.cancel();
        }
    }

    /// The id of the experiment running, and how far it is, in [0, 1].
    pub fn running_experiment(&self) -> Option<(&str, f64)> {
        self.worker
            .as_ref()
            .filter(|_| !self.progress.id.is_empty())
            .map(|_| (self.progress.id.as_str(), self.progress.fraction))
    }

    /// The worker's events since the last frame, up to the run's end, which drops the worker.
    /// Progress is kept here; the rest is for the app to apply.
    pub fn poll(&mut self) -> Vec<WorkerEvent> {
        let Some(worker) = &self.worker else {
            return Vec::new();
        };
        let mut events = Vec::new();
        for event in worker.poll() {
            match event {
                WorkerEvent::Started { index, total, id } => {
                    self.progress = Progress {
                        index,
                        total,
                        id,
                        fraction: 0.0,
                    };
                }
                WorkerEvent::Progress(f) => self.progress.fraction = f.clamp(0.0, 1.0),
                WorkerEvent::Done { .. } | WorkerEvent::Failed(_) => {
                    self.worker = None;
                    self.progress = Progress::default();
                    events.push(event);
                    break;
                }
                event => events.push(event),
            }
        }
        events
    }

    /// Cancel, for the run in progress.
    pub fn cancel_button(&self, ui: &mut egui::Ui) -> Option<Command> {
        let worker = self.worker.as_ref()?;
        ui.add_enabled(!worker.cancelling(), egui::Button::new("Cancel"))
            .on_hover_text(
                "Stops within one GPU submission; the experiment is recorded as cancelled",
            )
            .clicked()
            .then_some(Command::CancelRun)
    }

    /// The whole run's progress bar, while one runs.
    pub fn progress_bar(&self, ui: &mut egui::Ui) {
        if self.worker.is_none() {
            return;
        }
        let p = &self.progress;
        let overall = if p.total == 0 {
            0.0
        } else {
            (p.index as f64 + p.fraction) / p.total as f64
        };
        // Not animated: an animation repaints every frame, and on a CPU device every frame
        // takes cycles from the experiment being timed.
        ui.add(egui::ProgressBar::new(overall as f32).text(format!(
            "[{}/{}] {}",
            p.index + 1,
            p.total.max(1),
            p.id
        )));
    }
}

/// What Run costs, for hover text (per-experiment `wall_s` of the runs behind
/// [`super::start::RUN_COST`]).
pub fn run_cost_hint(quick: bool) -> &'static str {
    if quick {
        "Runs this experiment on the worker (quick). Most experiments take under a second; \
         the four divergence forms 10-14 s each on lavapipe, 3 s on an H200"
    } else {
        "Runs this experiment on the worker. Most experiments take under a second; the four \
         divergence forms 40-60 s each on lavapipe, 6-9 s on an H200"
    }
}
