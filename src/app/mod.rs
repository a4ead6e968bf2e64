//! The desktop app: the experiment tree, charts, lane grids, verdicts, uniformity-coloured
//! source, a WGSL playground and a compare view, all drawn from the library's result document.
//!
//! Every experiment in [`crate::experiments::registry`] appears here without code for it: the
//! tree groups ids by family (the prefix before `.`), charts come from the generic `series`,
//! the lane grid from `lanes`, and the kernel source by the one-name-per-kernel convention.
//! Persisted settings ([`State`]) live apart from runtime handles (device list, worker).

pub mod charts;
pub mod compare;
mod experiment_view;
pub mod lane_grid;
pub mod playground;
pub mod source_view;
mod tree;
pub mod verdicts;
pub mod worker;

use std::collections::HashMap;
use std::path::Path;

use eframe::egui::{self, Color32, RichText};
use serde::{Deserialize, Serialize};

use crate::experiments::RunConfig;
use crate::gpu::{AdapterSelector, adapters};
use crate::report::{ExperimentResult, ResultDocument, read_json, write_json};
use crate::uniformity::Analysis;
use compare::CompareView;
use lane_grid::BallotColours;
use playground::Playground;
use worker::{Worker, WorkerEvent};

/// The main views.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tab {
    /// The selected experiment: charts, verdicts, lane grid, source.
    #[default]
    Experiment,
    /// Several documents overlaid.
    Compare,
    /// The WGSL playground.
    Playground,
}

/// What persists between sessions (through eframe's storage).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct State {
    /// The adapter's index in the list (as `--adapter N`); `None` for divlab's default.
    pub adapter: Option<usize>,
    /// Quick runs: fewer repetitions, smaller sweeps.
    pub quick: bool,
    /// Timed repetitions; 0 for the default.
    pub reps: usize,
    /// The view shown.
    pub tab: Tab,
    /// The selected experiment id.
    pub selected: Option<String>,
    /// The path field for opening and saving results.
    pub path: String,
    /// The playground's source.
    pub playground: String,
}

impl Default for State {
    fn default() -> Self {
        Self {
            adapter: None,
            quick: true,
            reps: 0,
            tab: Tab::Experiment,
            selected: None,
            path: "results.json".to_owned(),
            playground: playground::EXAMPLE.to_owned(),
        }
    }
}

/// One adapter of the picker.
#[derive(Clone, Debug)]
pub struct AdapterChoice {
    /// Its index (as `--adapter N`).
    pub index: usize,
    /// Name, backend, driver and subgroup sizes.
    pub label: String,
}

/// A run's progress as the UI shows it.
#[derive(Clone, Debug, Default)]
struct Progress {
    index: usize,
    total: usize,
    id: String,
    fraction: f64,
}

/// The app.
pub struct DivlabApp {
    /// Persisted settings.
    pub state: State,
    adapters: Vec<AdapterChoice>,
    /// The result document shown (from a run or a file); changed only through
    /// [`Self::open_document`] and `merge`, which keep `lane_colours` in step.
    doc: Option<ResultDocument>,
    worker: Option<Worker>,
    progress: Progress,
    /// The last message: `(is_error, text)`.
    pub message: Option<(bool, String)>,
    /// The compare view.
    pub compare: CompareView,
    playground: Playground,
    /// Static analysis per shader stem, done once.
    analyses: HashMap<&'static str, Result<Analysis, String>>,
    /// The record point shown per experiment id.
    points: HashMap<String, usize>,
    /// Lane colours per experiment id of `doc`, built once; cleared when `doc` changes.
    lane_colours: HashMap<String, BallotColours>,
}

impl DivlabApp {
    /// The app with `state`, listing the adapters of every backend once (not per frame).
    pub fn new(state: State) -> Self {
        let instance = adapters::create_instance(None);
        let adapters = adapters::list_adapters(&instance, None)
            .into_iter()
            .map(|(e, _)| AdapterChoice {
                index: e.index,
                label: format!(
                    "#{} {} ({}, {}, SG {}–{}{})",
                    e.index,
                    e.info.name,
                    e.info.backend.to_str(),
                    e.info.driver,
                    e.info.subgroup_min_size,
                    e.info.subgroup_max_size,
                    if e.subgroups { "" } else { ", no subgroups" }
                ),
            })
            .collect();
        let playground = Playground::new(state.playground.clone());
        Self {
            state,
            adapters,
            doc: None,
            worker: None,
            progress: Progress::default(),
            message: None,
            compare: CompareView::default(),
            playground,
            analyses: HashMap::new(),
            points: HashMap::new(),
            lane_colours: HashMap::new(),
        }
    }

    /// The app as eframe creates it, with settings restored from its storage.
    pub fn from_creation_context(cc: &eframe::CreationContext<'_>) -> Self {
        let state = cc
            .storage
            .and_then(|s| eframe::get_value(s, eframe::APP_KEY))
            .unwrap_or_default();
        Self::new(state)
    }

    /// The adapters of the picker.
    pub fn adapters(&self) -> &[AdapterChoice] {
        &self.adapters
    }

    /// The result document shown (from a run or a file).
    pub fn doc(&self) -> Option<&ResultDocument> {
        self.doc.as_ref()
    }

    /// Shows a document, and adds it to the compare view under `label`.
    pub fn open_document(&mut self, label: String, doc: ResultDocument) {
        if self.state.selected.is_none() {
            self.state.selected = doc.experiments.first().map(|e| e.id.clone());
        }
        self.compare.add(label, doc.clone());
        self.doc = Some(doc);
        self.lane_colours.clear();
    }

    /// Opens a result JSON file or, for `.wgsl`, loads it into the playground.
    pub fn open_path(&mut self, path: &Path) {
        let label = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        if path.extension().is_some_and(|e| e == "wgsl") {
            match std::fs::read_to_string(path) {
                Ok(text) => {
                    self.playground.source = text;
                    self.state.tab = Tab::Playground;
                }
                Err(e) => self.message = Some((true, format!("{}: {e}", path.display()))),
            }
            return;
        }
        match read_json(path) {
            Ok(doc) => {
                self.message = Some((false, format!("opened {}", path.display())));
                self.open_document(label, doc);
            }
            Err(e) => self.message = Some((true, e.to_string())),
        }
    }

    /// Whether a run is in progress.
    pub fn running(&self) -> bool {
        self.worker.is_some()
    }

    /// Starts running `ids` on the worker thread.
    pub fn start_run(&mut self, ctx: &egui::Context, ids: Vec<String>) {
        if self.worker.is_some() {
            return;
        }
        let selector = AdapterSelector {
            backend: None,
            adapter: self.state.adapter.map(|i| i.to_string()),
        };
        let config = RunConfig {
            quick: self.state.quick,
            reps: (self.state.reps > 0).then_some(self.state.reps),
            fuzz_seeds: None,
        };
        self.progress = Progress::default();
        self.message = None;
        self.worker = Some(Worker::start(ctx.clone(), selector, config, ids));
    }

    fn poll_worker(&mut self) {
        let Some(worker) = &self.worker else { return };
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
                WorkerEvent::Finished(_) => {}
                WorkerEvent::Done { doc, cancelled } => {
                    let n = doc.experiments.len();
                    self.merge(*doc);
                    self.message = Some((
                        false,
                        if cancelled {
                            format!("cancelled after {n} experiment(s)")
                        } else {
                            format!("finished {n} experiment(s)")
                        },
                    ));
                    self.worker = None;
                    return;
                }
                WorkerEvent::Failed(e) => {
                    self.message = Some((true, e));
                    self.worker = None;
                    return;
                }
            }
        }
    }

    /// Merges a run's results into the shown document when it is from the same adapter,
    /// replacing experiments with the same id; otherwise the run's document replaces it.
    fn merge(&mut self, run: ResultDocument) {
        match &mut self.doc {
            Some(doc) => {
                if let Err(other_adapter) = doc.merge(run) {
                    self.doc = Some(*other_adapter);
                }
            }
            None => self.doc = Some(run),
        }
        self.lane_colours.clear();
        if let Some(doc) = &self.doc {
            self.compare.add("this run".to_owned(), doc.clone());
        }
    }

    fn result(&self, id: &str) -> Option<&ExperimentResult> {
        self.doc.as_ref()?.experiments.iter().find(|e| e.id == id)
    }

    /// Draws the whole app into `ui` (the window's root, or a test harness).
    pub fn show(&mut self, ui: &mut egui::Ui) {
        self.poll_worker();
        let dropped: Vec<_> = ui.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        for path in dropped {
            self.open_path(&path);
        }
        egui::Panel::top("files").show(ui, |ui| self.files_bar(ui));
        egui::Panel::left("experiments")
            .resizable(true)
            .default_size(300.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.left_panel(ui));
            });
        egui::CentralPanel::default().show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut self.state.tab, Tab::Experiment, "Experiment");
                ui.selectable_value(&mut self.state.tab, Tab::Compare, "Compare");
                ui.selectable_value(&mut self.state.tab, Tab::Playground, "Playground");
            });
            ui.separator();
            match self.state.tab {
                Tab::Experiment => {
                    egui::ScrollArea::vertical()
                        .id_salt("experiment_view")
                        .show(ui, |ui| self.experiment_view(ui));
                }
                Tab::Compare => {
                    egui::ScrollArea::vertical()
                        .id_salt("compare_view")
                        .show(ui, |ui| self.compare.ui(ui));
                }
                Tab::Playground => {
                    self.playground.ui(ui);
                    self.state.playground.clone_from(&self.playground.source);
                }
            }
        });
    }

    fn files_bar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let label = ui.label("Result file:");
            ui.add(egui::TextEdit::singleline(&mut self.state.path).desired_width(320.0))
                .labelled_by(label.id);
            if ui.button("Open").clicked() {
                let path = std::path::PathBuf::from(&self.state.path);
                self.open_path(&path);
            }
            if ui
                .add_enabled(self.doc.is_some(), egui::Button::new("Save"))
                .clicked()
                && let Some(doc) = &self.doc
            {
                let path = Path::new(&self.state.path);
                self.message = Some(match write_json(path, doc) {
                    Ok(()) => (false, format!("saved {}", path.display())),
                    Err(e) => (true, e.to_string()),
                });
            }
            ui.weak("(or drop .json / .wgsl files on the window)");
            if let Some((error, text)) = &self.message {
                let colour = if *error {
                    Color32::from_rgb(220, 60, 60)
                } else {
                    ui.visuals().text_color()
                };
                ui.label(RichText::new(text).color(colour));
            }
        });
    }
}

impl eframe::App for DivlabApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.state);
    }
}
