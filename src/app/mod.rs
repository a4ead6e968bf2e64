//! The desktop app: the experiment tree, charts, lane grids, verdicts, uniformity-coloured
//! source, a WGSL playground and a compare view, all drawn from the library's result document.
//!
//! Every experiment in [`crate::experiments::registry`] appears here without code for it: the
//! tree groups ids by family (the prefix before `.`), charts come from the generic `series`,
//! the lane grid from `lanes`, and the kernel source by the one-name-per-kernel convention.
//! Persisted settings ([`State`]) live apart from runtime handles (device list, worker).

pub mod charts;
pub mod compare;
pub mod documents;
pub mod examples;
mod experiment_view;
pub mod files;
pub mod frame_stats;
pub mod lane_grid;
pub mod playground;
pub mod profile_view;
pub mod source_view;
mod start;
mod tree;
pub mod verdicts;
pub mod worker;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use eframe::egui::{self, Color32, RichText};
use serde::{Deserialize, Serialize};

use crate::experiments::RunConfig;
use crate::gpu::{AdapterSelector, adapters};
use crate::report::{ExperimentResult, ResultDocument, read_json};
use crate::uniformity::Analysis;
use compare::CompareView;
use documents::{Document, Origin};
use files::{Decision, DialogKind, FileAction, Pending};
use lane_grid::LaneCache;
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
    /// The last file opened or saved; dialogs start there.
    pub path: String,
    /// The playground's source.
    pub playground: String,
    /// How the playground runs it.
    pub playground_settings: playground::RunSettings,
}

impl Default for State {
    fn default() -> Self {
        Self {
            adapter: None,
            quick: true,
            reps: 0,
            tab: Tab::Experiment,
            selected: None,
            path: String::new(),
            playground: playground::EXAMPLE.to_owned(),
            playground_settings: playground::RunSettings::default(),
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
    /// Whether divlab picks it when none is named.
    pub is_default: bool,
}

/// "#0 llvmpipe (LLVM 15.0.6, 256 bits) · vulkan, llvmpipe · SG 8"; a backend that names no
/// driver (GL) or reports no subgroup sizes says so instead of leaving a gap.
fn adapter_label(e: &adapters::AdapterEntry) -> String {
    let info = &e.info;
    let mut label = format!("#{} {} · {}", e.index, info.name, info.backend.to_str());
    if !info.driver.is_empty() {
        label += &format!(", {}", info.driver);
    }
    label += &match (e.subgroups, info.subgroup_min_size, info.subgroup_max_size) {
        (false, ..) => " · no subgroups".to_owned(),
        (true, min, max) if min == max => format!(" · SG {min}"),
        (true, min, max) => format!(" · SG {min}–{max}"),
    };
    label
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
    /// Opened files and run results; changed only through methods that keep `lane_caches` in
    /// step.
    documents: Vec<Document>,
    /// The index of the document shown.
    current: usize,
    /// The index of the document the running run adds its results to.
    run_document: Option<usize>,
    /// How paths are asked for.
    pub dialogs: DialogKind,
    /// A file question in progress.
    pending: Option<Pending>,
    /// Where run documents are autosaved; `None` keeps them in memory only.
    pub results_folder: Option<PathBuf>,
    worker: Option<Worker>,
    progress: Progress,
    /// The start page's subgroup probe of the selected adapter.
    probe: Option<start::AdapterProbe>,
    /// The last message: `(is_error, text)`.
    pub message: Option<(bool, String)>,
    /// The compare view.
    pub compare: CompareView,
    /// The playground.
    pub playground: Playground,
    /// Static analysis per shader stem, done once.
    analyses: HashMap<String, Result<Analysis, String>>,
    /// A kernel line a verdict named and the user clicked, per experiment id.
    source_focus: Option<(String, source_view::Focus)>,
    /// The record point shown per experiment id.
    points: HashMap<String, usize>,
    /// Lane colours per experiment id of `doc`, built once; cleared when `doc` changes.
    lane_caches: HashMap<String, LaneCache>,
    /// Whether the renderer clears the window to the panel colour ([`eframe::App::clear_color`]),
    /// so the panels need not fill it again; a test harness does not.
    renderer_clears: bool,
    /// `DIVLAB_FRAME_STATS`: what frames cost.
    frame_stats: Option<frame_stats::FrameStats>,
}

impl DivlabApp {
    /// The app with `state`, listing the adapters of every backend once (not per frame).
    pub fn new(state: State) -> Self {
        let instance = adapters::create_instance(None);
        let adapters = adapters::list_adapters(&instance, None)
            .into_iter()
            .map(|(e, _)| AdapterChoice {
                index: e.index,
                label: adapter_label(&e),
                is_default: e.is_default,
            })
            .collect();
        let mut playground = Playground::new(state.playground.clone());
        playground.settings = state.playground_settings.clone();
        Self {
            state,
            adapters,
            documents: Vec::new(),
            current: 0,
            run_document: None,
            dialogs: DialogKind::detect(),
            pending: None,
            results_folder: None,
            worker: None,
            progress: Progress::default(),
            probe: None,
            message: None,
            compare: CompareView::default(),
            playground,
            analyses: HashMap::new(),
            source_focus: None,
            points: HashMap::new(),
            lane_caches: HashMap::new(),
            renderer_clears: false,
            frame_stats: frame_stats::FrameStats::from_env(),
        }
    }

    /// The app as eframe creates it, with settings restored from its storage.
    pub fn from_creation_context(cc: &eframe::CreationContext<'_>) -> Self {
        let state = cc
            .storage
            .and_then(|s| eframe::get_value(s, eframe::APP_KEY))
            .unwrap_or_default();
        Self {
            renderer_clears: true,
            results_folder: Some(documents::results_folder()),
            ..Self::new(state)
        }
    }

    /// The adapters of the picker.
    pub fn adapters(&self) -> &[AdapterChoice] {
        &self.adapters
    }

    /// The result document shown (from a run or a file).
    pub fn doc(&self) -> Option<&ResultDocument> {
        self.documents.get(self.current).map(|d| &d.doc)
    }

    /// Every document held, opened files and runs, in the order they came.
    pub fn documents(&self) -> &[Document] {
        &self.documents
    }

    /// Shows the document at `index`.
    pub fn show_document(&mut self, index: usize) {
        if index < self.documents.len() && index != self.current {
            self.current = index;
            self.lane_caches.clear();
        }
    }

    /// Adds a document and shows it (and adds it to the compare view).
    fn add_document(&mut self, document: Document) -> usize {
        if self.state.selected.is_none() {
            self.state.selected = document.doc.experiments.first().map(|e| e.id.clone());
        }
        self.compare
            .add(document.label.clone(), document.doc.clone());
        self.documents.push(document);
        self.current = self.documents.len() - 1;
        self.lane_caches.clear();
        self.current
    }

    /// Opens a result JSON file or, for `.wgsl`, loads it into the playground. A file already
    /// open is read again into its document.
    pub fn open_path(&mut self, path: &Path) {
        self.state.path = path.display().to_string();
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
                let document = Document::opened(path, doc);
                let open = self
                    .documents
                    .iter()
                    .position(|d| d.file.as_deref() == Some(path));
                match open {
                    Some(index) => {
                        self.compare
                            .add(document.label.clone(), document.doc.clone());
                        self.documents[index] = document;
                        self.current = index;
                        self.lane_caches.clear();
                    }
                    None => {
                        self.add_document(document);
                    }
                }
            }
            Err(e) => self.message = Some((true, e.to_string())),
        }
    }

    /// Save: writes the shown document to its file. A file the app did not write itself (one it
    /// opened) is replaced only after the user confirms; a document without a file asks where.
    pub fn save(&mut self) {
        let Some(document) = self.documents.get(self.current) else {
            return;
        };
        match &document.file {
            Some(path) if !document.written && path.exists() => {
                self.pending = Some(Pending::Overwrite { path: path.clone() });
            }
            Some(path) => {
                let path = path.clone();
                self.save_to(&path);
            }
            None => self.save_as(),
        }
    }

    /// Save As: asks where to write the shown document.
    pub fn save_as(&mut self) {
        let Some(document) = self.documents.get(self.current) else {
            return;
        };
        let suggested = document.file.clone().unwrap_or_else(|| {
            let dir = Path::new(&self.state.path)
                .parent()
                .unwrap_or(Path::new(""));
            let name = document
                .autosaved
                .as_ref()
                .and_then(|p| p.file_name())
                .map_or_else(|| "results.json".into(), |n| n.to_owned());
            dir.join(name)
        });
        self.pending = Some(files::ask(
            self.dialogs,
            FileAction::SaveAs,
            Some(suggested),
        ));
    }

    /// Open: asks for a result file or kernel.
    pub fn open(&mut self) {
        let suggested = (!self.state.path.is_empty()).then(|| PathBuf::from(&self.state.path));
        self.pending = Some(files::ask(self.dialogs, FileAction::Open, suggested));
    }

    fn save_to(&mut self, path: &Path) {
        let Some(document) = self.documents.get_mut(self.current) else {
            return;
        };
        self.message = Some(match document.save_to(path) {
            Ok(()) => {
                let label = document.label.clone();
                self.compare.add(label, document.doc.clone());
                self.state.path = path.display().to_string();
                (false, format!("saved {}", path.display()))
            }
            Err(e) => (true, e.to_string()),
        });
    }

    /// Acts on an answered file question.
    fn decided(&mut self, decision: Decision) {
        match decision {
            Decision::Open(path) => self.open_path(&path),
            Decision::Save { path, confirmed } => {
                let own = self
                    .documents
                    .get(self.current)
                    .is_some_and(|d| d.written && d.file.as_deref() == Some(path.as_path()));
                if path.exists() && !confirmed && !own {
                    self.pending = Some(Pending::Overwrite { path });
                } else {
                    self.save_to(&path);
                }
            }
        }
    }

    /// Whether a file question (prompt, dialog, overwrite) is open.
    pub fn asking(&self) -> bool {
        self.pending.is_some()
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

    /// Cancels the run in progress; it stops within one GPU submission.
    pub fn cancel_run(&self) {
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

    fn poll_worker(&mut self) {
        let Some(worker) = &self.worker else { return };
        for event in worker.poll() {
            match event {
                WorkerEvent::Device(adapter) => {
                    // One adapter's runs go into one run document; another adapter's, or the
                    // first run, start a new one.
                    let same = self.documents.iter().rposition(|d| {
                        d.origin == Origin::Run && d.doc.adapter.same_adapter(&adapter)
                    });
                    let index = match same {
                        Some(index) => index,
                        None => self.add_document(Document::run(*adapter)),
                    };
                    self.run_document = Some(index);
                    self.show_document(index);
                }
                WorkerEvent::Started { index, total, id } => {
                    self.progress = Progress {
                        index,
                        total,
                        id,
                        fraction: 0.0,
                    };
                }
                WorkerEvent::Progress(f) => self.progress.fraction = f.clamp(0.0, 1.0),
                WorkerEvent::Finished(result) => {
                    if let Some(index) = self.run_document {
                        self.documents[index].add_result(*result);
                        self.run_changed(index);
                    }
                }
                WorkerEvent::Done { doc, cancelled } => {
                    let n = doc.experiments.len();
                    let text = if cancelled {
                        format!("cancelled after {n} experiment(s)")
                    } else {
                        format!("finished {n} experiment(s)")
                    };
                    if let Some(index) = self.run_document.take() {
                        self.documents[index].finish_run(doc.adapter);
                        self.run_changed(index);
                    }
                    self.message = Some((false, text));
                    self.worker = None;
                    self.progress = Progress::default();
                    return;
                }
                WorkerEvent::Failed(e) => {
                    self.message = Some((true, e));
                    self.worker = None;
                    self.run_document = None;
                    self.progress = Progress::default();
                    return;
                }
            }
        }
    }

    /// After a run document changed: refreshes what shows it, and autosaves it. Returns where
    /// it was saved.
    fn run_changed(&mut self, index: usize) -> Option<PathBuf> {
        if index == self.current {
            self.lane_caches.clear();
        }
        let document = &mut self.documents[index];
        self.compare
            .add(document.label.clone(), document.doc.clone());
        let folder = self.results_folder.as_ref()?;
        match document.autosave(folder) {
            Ok(path) => Some(path),
            Err(e) => {
                self.message = Some((true, format!("cannot autosave the run: {e}")));
                None
            }
        }
    }

    fn result(&self, id: &str) -> Option<&ExperimentResult> {
        self.doc()?.experiments.iter().find(|e| e.id == id)
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
        let (open, save) = ui.input_mut(|i| {
            (
                i.consume_key(egui::Modifiers::COMMAND, egui::Key::O),
                i.consume_key(egui::Modifiers::COMMAND, egui::Key::S),
            )
        });
        if self.pending.is_none() {
            if open {
                self.open();
            } else if save {
                self.save();
            }
        }
        if let Some(decision) = files::show(ui.ctx(), &mut self.pending) {
            self.decided(decision);
        }
        let (mut side, mut central) = (
            egui::Frame::side_top_panel(ui.style()),
            egui::Frame::central_panel(ui.style()),
        );
        if self.renderer_clears {
            // The renderer's clear paints the panel colour already. On a CPU device (lavapipe
            // under Xvfb) filling the window again cost half of every frame (70 -> 35 ms).
            side = side.fill(Color32::TRANSPARENT);
            central = central.fill(Color32::TRANSPARENT);
        }
        egui::Panel::top("files")
            .frame(side)
            .show(ui, |ui| self.files_bar(ui));
        egui::Panel::left("experiments")
            .frame(side)
            .resizable(true)
            .default_size(300.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| self.left_panel(ui));
            });
        egui::CentralPanel::default().frame(central).show(ui, |ui| {
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
                    // One selection for both views: the tree's, or the one Compare's own
                    // picker makes.
                    self.compare.experiment.clone_from(&self.state.selected);
                    egui::ScrollArea::vertical()
                        .id_salt("compare_view")
                        .show(ui, |ui| self.compare.ui(ui));
                    self.state.selected.clone_from(&self.compare.experiment);
                }
                Tab::Playground => {
                    self.playground.ui(ui, self.state.adapter);
                    self.state.playground.clone_from(&self.playground.source);
                    self.state
                        .playground_settings
                        .clone_from(&self.playground.settings);
                }
            }
        });
    }

    fn files_bar(&mut self, ui: &mut egui::Ui) {
        let has_doc = !self.documents.is_empty();
        ui.horizontal(|ui| {
            if ui
                .button("Open…")
                .on_hover_text("A result file (.json) or a kernel (.wgsl); Ctrl+O")
                .clicked()
            {
                self.open();
            }
            let save = ui
                .add_enabled(has_doc, egui::Button::new("Save"))
                .on_hover_text(match self.documents.get(self.current) {
                    Some(d) => match &d.file {
                        Some(path) => {
                            format!("Write the shown document to {}; Ctrl+S", path.display())
                        }
                        None => "Choose where to write the shown document; Ctrl+S".to_owned(),
                    },
                    None => "Nothing to save yet".to_owned(),
                });
            if save.clicked() {
                self.save();
            }
            if ui
                .add_enabled(has_doc, egui::Button::new("Save As…"))
                .clicked()
            {
                self.save_as();
            }
            if let Some(d) = self.documents.get(self.current) {
                let state = match (&d.file, d.unsaved, &d.autosaved) {
                    (Some(_), false, _) if !d.written => "as read from its file".to_owned(),
                    (Some(_), false, _) => "saved".to_owned(),
                    (_, true, Some(path)) => format!("autosaved to {}", path.display()),
                    (_, true, None) => "unsaved".to_owned(),
                    (None, false, _) => String::new(),
                };
                ui.weak(format!("{} · {state}", d.label));
            } else {
                ui.weak("(or drop .json / .wgsl files on the window)");
            }
        });
        if let Some((error, text)) = &self.message {
            let colour = if *error {
                Color32::from_rgb(220, 60, 60)
            } else {
                ui.visuals().text_color()
            };
            // Wrapped: a long error reads whole instead of running off the window.
            ui.add(egui::Label::new(RichText::new(text).color(colour)).wrap());
        }
    }
}

impl eframe::App for DivlabApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        self.show(ui);
        if let Some(stats) = &mut self.frame_stats {
            stats.record(ui.ctx(), frame.info().cpu_usage);
        }
    }

    fn clear_color(&self, visuals: &egui::Visuals) -> [f32; 4] {
        visuals.panel_fill.to_normalized_gamma_f32()
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, eframe::APP_KEY, &self.state);
    }
}
