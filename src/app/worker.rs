//! Runs experiments on a worker thread, through the same run loop as `--bench`. The UI polls a
//! channel each frame and never blocks. The worker asks for a repaint at once when an experiment
//! starts or ends, but for progress inside one at most twice a second, and on a CPU device
//! (where every frame takes cycles from the experiment) at most every few seconds.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Duration;

use eframe::egui;

use crate::bench::{BenchConfig, BenchEvent, adapter_record, run_bench};
use crate::experiments::{Lab, RunConfig};
use crate::gpu::{AdapterSelector, CancelToken, GpuContext};
use crate::profile::run::{Finished, Request, Stage};
use crate::report::{AdapterRecord, ExperimentResult, ResultDocument};

/// What the worker reports.
#[derive(Debug)]
pub enum WorkerEvent {
    /// The device is open: the adapter the results come from.
    Device(Box<AdapterRecord>),
    /// An experiment starts: its position, the total and its id.
    Started {
        index: usize,
        total: usize,
        id: String,
    },
    /// Progress inside the current experiment, in [0, 1].
    Progress(f64),
    /// One experiment finished.
    Finished(Box<ExperimentResult>),
    /// The run ended (all done, or cancelled); the document holds what finished.
    Done {
        doc: Box<ResultDocument>,
        cancelled: bool,
    },
    /// The run could not start (no device, bad settings).
    Failed(String),
}

/// Work on a thread of its own that reports through a channel and stops, when asked, at its
/// next GPU submission: the experiment runs and the Playground's profile runs.
pub struct Background<T> {
    reports: Receiver<T>,
    cancel: CancelToken,
}

impl<T: Send + 'static> Background<T> {
    /// Runs `work` on a thread named `name`, handing it the cancel token and the sender.
    pub fn spawn(name: &str, work: impl FnOnce(CancelToken, Sender<T>) + Send + 'static) -> Self {
        let (tx, reports) = channel();
        let cancel = CancelToken::default();
        let token = cancel.clone();
        std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || work(token, tx))
            .expect("spawning a thread succeeds");
        Self { reports, cancel }
    }

    /// Stops the work at its next GPU submission.
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Whether cancel was asked.
    pub fn cancelling(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The next report, if one came, without waiting.
    pub fn try_recv(&self) -> Option<T> {
        self.reports.try_recv().ok()
    }
}

/// A run of experiments in progress; cancelling it records the interrupted experiment as
/// cancelled.
pub type Worker = Background<WorkerEvent>;

impl Worker {
    /// Starts running the experiments `ids` (in registry order) on the selected adapter.
    pub fn start(
        ctx: egui::Context,
        selector: AdapterSelector,
        config: RunConfig,
        ids: Vec<String>,
    ) -> Self {
        Self::spawn("divlab-worker", move |token, tx| {
            let progress_repaint = std::sync::OnceLock::new();
            let send = |event: WorkerEvent| {
                let repaint = match &event {
                    WorkerEvent::Device(adapter) => {
                        let cpu = adapter.device_type == "Cpu";
                        let _ = progress_repaint.set(Duration::from_millis(if cpu {
                            3000
                        } else {
                            500
                        }));
                        Duration::ZERO
                    }
                    WorkerEvent::Progress(_) => progress_repaint
                        .get()
                        .copied()
                        .unwrap_or(Duration::from_millis(500)),
                    _ => Duration::ZERO,
                };
                // A closed channel means the app went away; nothing is left to tell.
                let _ = tx.send(event);
                ctx.request_repaint_after(repaint);
            };
            match run(&selector, config, ids, token, &send) {
                Ok((doc, cancelled)) => send(WorkerEvent::Done {
                    doc: Box::new(doc),
                    cancelled,
                }),
                Err(e) => send(WorkerEvent::Failed(format!("{e:#}"))),
            }
        })
    }

    /// Events that arrived since the last call, without waiting.
    pub fn poll(&self) -> Vec<WorkerEvent> {
        self.reports.try_iter().collect()
    }
}

/// The CLI's run loop ([`run_bench`]) on a device of the worker's own.
fn run(
    selector: &AdapterSelector,
    run: RunConfig,
    ids: Vec<String>,
    cancel: CancelToken,
    send: &(dyn Fn(WorkerEvent) + Sync),
) -> crate::Result<(ResultDocument, bool)> {
    run.validate()?;
    let lab = Lab::new(GpuContext::new(selector)?.with_cancel_token(cancel.clone()));
    send(WorkerEvent::Device(Box::new(adapter_record(&lab))));
    let config = BenchConfig {
        run,
        only: None,
        ids: Some(ids),
    };
    let doc = run_bench(&lab, &config, &|event| match event {
        BenchEvent::Started { index, total, id } => send(WorkerEvent::Started {
            index,
            total,
            id: id.to_owned(),
        }),
        BenchEvent::Progress(f) => send(WorkerEvent::Progress(f)),
        BenchEvent::Finished(result) => send(WorkerEvent::Finished(Box::new(result.clone()))),
    });
    Ok((doc, cancel.is_cancelled()))
}

/// What a Playground run reports: each stage as it starts, then its one outcome.
pub enum ProfileReport {
    /// The profile started this stage.
    Stage(Stage),
    /// The profile ended (boxed: a finished profile is large, a stage a few words).
    Done(Box<crate::Result<Finished>>),
}

/// A Playground run: `divlab profile`'s engine on a thread of its own, so the editor stays
/// usable. Cancel stops it at its next GPU submission.
pub type ProfileRun = Background<ProfileReport>;

impl ProfileRun {
    /// Starts profiling `request` on the selected adapter.
    pub fn start(ctx: egui::Context, selector: AdapterSelector, request: Request) -> Self {
        Self::spawn("divlab-profile", move |token, tx| {
            let outcome = GpuContext::new(&selector).and_then(|gpu| {
                let lab = Lab::new(gpu.with_cancel_token(token));
                crate::profile::run::profile_with_progress(&lab, &request, &mut |stage| {
                    let _ = tx.send(ProfileReport::Stage(stage));
                    ctx.request_repaint();
                })
            });
            let _ = tx.send(ProfileReport::Done(Box::new(outcome)));
            ctx.request_repaint();
        })
    }

    /// What came since the last call, without waiting: the latest stage, if one started, and
    /// the outcome, once the run has ended.
    pub fn poll(&self) -> (Option<Stage>, Option<crate::Result<Finished>>) {
        let (mut stage, mut outcome) = (None, None);
        while let Some(report) = self.try_recv() {
            match report {
                ProfileReport::Stage(s) => stage = Some(s),
                ProfileReport::Done(o) => outcome = Some(*o),
            }
        }
        (stage, outcome)
    }

    /// Whether the run has ended: it reported its outcome (taken here), or its thread is
    /// gone.
    pub fn ended(&self) -> bool {
        loop {
            match self.reports.try_recv() {
                Ok(ProfileReport::Stage(_)) => continue,
                Ok(ProfileReport::Done(_)) => return true,
                Err(e) => return e == std::sync::mpsc::TryRecvError::Disconnected,
            }
        }
    }
}
