//! Runs experiments on a worker thread. The UI polls a channel each frame and never blocks;
//! the worker calls `request_repaint` on every event so progress shows while the UI is idle.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};

use eframe::egui;

use crate::bench::adapter_record;
use crate::experiments::{Lab, RunConfig, registry, run_experiment};
use crate::gpu::{AdapterSelector, GpuContext};
use crate::report::{ExperimentResult, ResultDocument, SCHEMA_VERSION};

/// What the worker reports.
#[derive(Debug)]
pub enum WorkerEvent {
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

/// A run in progress.
pub struct Worker {
    events: Receiver<WorkerEvent>,
    cancel: Arc<AtomicBool>,
}

impl Worker {
    /// Starts running the experiments `ids` (in registry order) on the selected adapter.
    pub fn start(
        ctx: egui::Context,
        selector: AdapterSelector,
        config: RunConfig,
        ids: Vec<String>,
    ) -> Self {
        let (tx, events) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        std::thread::Builder::new()
            .name("divlab-worker".to_owned())
            .spawn(move || {
                let send = |event| {
                    // A closed channel means the app went away; nothing is left to tell.
                    let _ = tx.send(event);
                    ctx.request_repaint();
                };
                match run(&selector, &config, &ids, &flag, &send) {
                    Ok((doc, cancelled)) => send(WorkerEvent::Done {
                        doc: Box::new(doc),
                        cancelled,
                    }),
                    Err(e) => send(WorkerEvent::Failed(format!("{e:#}"))),
                }
            })
            .expect("spawning a thread succeeds");
        Self { events, cancel }
    }

    /// Asks the run to stop after the current experiment (an experiment cannot be interrupted
    /// mid-dispatch).
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether cancel was asked.
    pub fn cancelling(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Events that arrived since the last call, without waiting.
    pub fn poll(&self) -> Vec<WorkerEvent> {
        self.events.try_iter().collect()
    }
}

fn run(
    selector: &AdapterSelector,
    config: &RunConfig,
    ids: &[String],
    cancel: &AtomicBool,
    send: &(dyn Fn(WorkerEvent) + Sync),
) -> crate::Result<(ResultDocument, bool)> {
    config.validate()?;
    let created = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let lab = Lab::new(GpuContext::new(selector)?);
    let experiments: Vec<_> = registry()
        .into_iter()
        .filter(|e| ids.iter().any(|id| id == e.id()))
        .collect();
    let total = experiments.len();
    let mut results = Vec::with_capacity(total);
    let mut cancelled = false;
    for (index, experiment) in experiments.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            cancelled = true;
            break;
        }
        send(WorkerEvent::Started {
            index,
            total,
            id: experiment.id().to_owned(),
        });
        let progress = |f: f64| send(WorkerEvent::Progress(f));
        let result = run_experiment(&lab, experiment.as_ref(), config, &progress);
        send(WorkerEvent::Finished(Box::new(result.clone())));
        results.push(result);
    }
    let doc = ResultDocument {
        schema_version: SCHEMA_VERSION,
        divlab_version: env!("CARGO_PKG_VERSION").to_owned(),
        created,
        adapter: adapter_record(&lab),
        experiments: results,
    };
    Ok((doc, cancelled))
}
