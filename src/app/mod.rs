//! The desktop app: the experiment tree, charts, lane grids, verdicts, uniformity-coloured
//! source, a WGSL playground and a compare view, all drawn from the library's result document.
//!
//! Every experiment in [`crate::experiments::registry`] appears here without code for it: the
//! tree groups ids by family (the prefix before `.`), charts come from the generic `series`,
//! the lane grid from `lanes`, and the kernel source by the one-name-per-kernel convention.
//!
//! Shaped after egui's `wrap_app`: what persists, the settings and the persisted panels, is one
//! [`State`]; runtime handles (the adapter list, the worker, the documents) live beside it.
//! Panels change their own state in place and return a [`Command`] for anything beyond it,
//! which [`DivlabApp::apply`] alone carries out.

mod adapters;
pub mod charts;
pub mod compare;
pub mod documents;
mod experiment_view;
mod fault_report;
pub mod files;
pub mod frame_stats;
pub mod lane_grid;
pub mod pictures;
pub mod playground;
pub mod profile_view;
mod runner;
mod saving;
pub mod source_view;
pub mod start;
mod state;
mod tree;
pub mod verdicts;
pub mod worker;

use std::path::{Path, PathBuf};

use eframe::egui::{self, Color32, RichText};

use crate::report::{ResultDocument, read_json};
pub use adapters::AdapterChoice;
use adapters::Adapters;
use compare::CompareView;
use documents::{Document, Documents};
use experiment_view::{ExperimentView, Shown};
pub use fault_report::fault_report;
use files::{Decision, DialogKind, Pending, SaveTarget};
use playground::{Playground, PlaygroundAction};
/// The dispatch map lives with the profile pane that shows it; `app::dispatch_map` stays its
/// path for the Playground, the benches and the tests.
pub use profile_view::dispatch_map;
use runner::Runner;
pub use state::{State, Tab};
use tree::LeftPanel;
use worker::WorkerEvent;

/// What a panel asks of the app, beyond its own state.
#[derive(Debug, PartialEq, Eq)]
#[must_use]
pub enum Command {
    /// Ask for a result file or kernel to open.
    Open,
    /// Open these files (dropped on the window together).
    OpenPaths(Vec<PathBuf>),
    /// Save the shown document to its file.
    Save,
    /// Ask where to save the shown document.
    SaveAs,
    /// Act on an answered file question.
    Decided(Decision),
    /// Run these experiments on the worker.
    Run(Vec<String>),
    /// Cancel the run in progress.
    CancelRun,
    /// Show the document at this index.
    ShowDocument(usize),
}

/// The app.
pub struct DivlabApp {
    /// Persisted settings and panels.
    pub state: State,
    adapters: Adapters,
    /// Opened files and run results.
    documents: Documents,
    /// The experiment run in progress.
    runner: Runner,
    /// How paths are asked for.
    pub dialogs: DialogKind,
    /// A file question in progress.
    pending: Option<Pending>,
    /// What the save being asked about writes.
    saving: SaveTarget,
    /// Kernel files this app wrote: saved again without asking.
    written_kernels: Vec<PathBuf>,
    /// Where closing the window stands (it asks first over an edited kernel).
    closing: saving::Closing,
    /// Where run documents are autosaved; `None` keeps them in memory only.
    pub results_folder: Option<PathBuf>,
    /// The last message: `(is_error, text)`.
    pub message: Option<(bool, String)>,
    /// The compare view.
    pub compare: CompareView,
    /// The Experiment tab's caches.
    experiment: ExperimentView,
    /// Whether the renderer clears the window to the panel colour ([`eframe::App::clear_color`]),
    /// so the panels need not fill it again; a test harness does not.
    renderer_clears: bool,
    /// `DIVLAB_FRAME_STATS`: what frames cost.
    frame_stats: Option<frame_stats::FrameStats>,
    /// Whether a GPU run was in progress at the last frame: the state is saved as one begins.
    was_running: bool,
    /// Where a driver fault's message goes, and the marker of a run in progress; `None` in a
    /// test harness.
    fault_report: Option<fault_report::RunMarker>,
}

impl DivlabApp {
    /// The app with `state`, listing the adapters of every backend once (not per frame).
    pub fn new(state: State) -> Self {
        Self {
            state,
            adapters: Adapters::list(),
            documents: Documents::default(),
            runner: Runner::default(),
            dialogs: DialogKind::detect(),
            pending: None,
            saving: SaveTarget::Results,
            written_kernels: Vec::new(),
            closing: saving::Closing::No,
            results_folder: None,
            message: None,
            compare: CompareView::default(),
            experiment: ExperimentView::default(),
            renderer_clears: false,
            frame_stats: frame_stats::FrameStats::from_env(),
            was_running: false,
            fault_report: None,
        }
    }

    /// The app as eframe creates it, with settings restored from its storage.
    pub fn from_creation_context(cc: &eframe::CreationContext<'_>) -> Self {
        let state = cc
            .storage
            .and_then(|s| eframe::get_value(s, eframe::APP_KEY))
            .unwrap_or_default();
        let report = fault_report();
        Self {
            renderer_clears: true,
            results_folder: Some(documents::results_folder()),
            message: fault_report::take_last_fault(&report).map(|told| (true, told)),
            fault_report: Some(fault_report::RunMarker::beside(report)),
            ..Self::new(state)
        }
    }

    /// The adapters of the picker.
    pub fn adapters(&self) -> &[AdapterChoice] {
        self.adapters.choices()
    }

    /// The result document shown (from a run or a file).
    pub fn doc(&self) -> Option<&ResultDocument> {
        self.documents.shown().map(|d| &d.doc)
    }

    /// Every document held, opened files and runs, in the order they came.
    pub fn documents(&self) -> &[Document] {
        self.documents.all()
    }

    /// The Playground panel.
    pub fn playground(&self) -> &Playground {
        &self.state.playground
    }

    /// Whether a file question (prompt, dialog, overwrite) is open.
    pub fn asking(&self) -> bool {
        self.pending.is_some()
    }

    /// Whether a run is in progress.
    pub fn running(&self) -> bool {
        self.runner.running()
    }

    /// The id of the experiment running, and how far it is, in [0, 1].
    pub fn running_experiment(&self) -> Option<(&str, f64)> {
        self.runner.running_experiment()
    }

    /// Cancels the run in progress; it stops within one GPU submission.
    pub fn cancel_run(&self) {
        self.runner.cancel();
    }

    /// Opens several files, each as [`open_path`](Self::open_path) does. Where one fails, the
    /// message names every failure, not only the last file's outcome.
    pub fn open_paths(&mut self, paths: &[PathBuf]) {
        let mut failed = Vec::new();
        for path in paths {
            self.open_path(path);
            if let Some((true, why)) = &self.message {
                failed.push(why.clone());
            }
        }
        if !failed.is_empty() {
            let opened = paths.len() - failed.len();
            let also = if opened > 0 {
                format!(" (the other {opened} opened)")
            } else {
                String::new()
            };
            self.message = Some((true, format!("{}{also}", failed.join("; "))));
        }
    }

    /// Opens a result JSON file or, for `.wgsl`, loads it into the playground. A file already
    /// open is read again into its document.
    pub fn open_path(&mut self, path: &Path) {
        self.state.path = path.display().to_string();
        if crate::user_file::is_wgsl(path) {
            match std::fs::read_to_string(path) {
                Ok(text) => {
                    let told = self.state.playground.open_kernel(path, text);
                    self.message = told.map(|t| (false, format!("opened {}: {t}", path.display())));
                    self.state.tab = Tab::Playground;
                }
                Err(e) => self.message = Some((true, format!("{}: {e}", path.display()))),
            }
            return;
        }
        if is_profile_document(path) {
            self.open_profile(path);
            return;
        }
        match read_json(path) {
            Ok(doc) => {
                self.message = Some((false, format!("opened {}", path.display())));
                let (index, added) = self.documents.opened(Document::opened(path, doc));
                self.changed(index, added);
            }
            Err(e) => self.message = Some((true, e.to_string())),
        }
    }

    /// Opens a profile document in the Playground, saying what ran where.
    fn open_profile(&mut self, path: &Path) {
        let shown = crate::profile::report::read_profile(path)
            .map_err(|e| e.to_string())
            .and_then(|profile| {
                let opened = format!(
                    "opened {}: the profile of {} `{}` on {} ({})",
                    path.display(),
                    profile.kernel.file,
                    profile.kernel.entry,
                    profile.adapter.name,
                    profile.adapter.backend
                );
                self.state.playground.show_profile(profile)?;
                Ok(opened)
            });
        self.message = Some(match shown {
            Ok(opened) => {
                self.state.tab = Tab::Playground;
                (false, opened)
            }
            Err(e) => (true, format!("{}: {e}", path.display())),
        });
    }

    /// Carries out what a panel asked for.
    pub fn apply(&mut self, ctx: &egui::Context, command: Command) {
        match command {
            Command::Open => self.open(),
            Command::OpenPaths(paths) => self.open_paths(&paths),
            Command::Save => self.save(),
            Command::SaveAs => self.save_as(),
            Command::Decided(decision) => self.decided(decision),
            Command::Run(ids) => {
                if self.runner.start(ctx, &self.state, ids) {
                    self.message = None;
                }
            }
            Command::CancelRun => self.runner.cancel(),
            Command::ShowDocument(index) => self.documents.show(index),
        }
    }

    /// After the document at `index` changed (`added`: it is new): the compare view takes the
    /// new contents, and a new document's first experiment is selected if none is.
    fn changed(&mut self, index: usize, added: bool) {
        let document = &self.documents.all()[index];
        if added && self.state.selected.is_none() {
            self.state.selected = document.doc.experiments.first().map(|e| e.id.clone());
        }
        self.compare
            .add(document.label.clone(), document.doc.clone());
    }

    /// Applies what the worker reported since the last frame.
    fn poll_worker(&mut self) {
        for event in self.runner.poll() {
            match event {
                WorkerEvent::Device(adapter) => {
                    // One adapter's runs go into one run document; another adapter's, or the
                    // first run, start a new one.
                    let (index, added) = self.documents.run_started(*adapter);
                    if added {
                        self.changed(index, true);
                    }
                }
                WorkerEvent::Finished(result) => {
                    if let Some(index) = self.documents.run_result(*result) {
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
                    if let Some(index) = self.documents.run_ended(Some(doc.adapter)) {
                        self.run_changed(index);
                    }
                    self.message = Some((false, text));
                }
                WorkerEvent::Failed(e) => {
                    let _ = self.documents.run_ended(None);
                    self.message = Some((true, e));
                }
                // The runner keeps these.
                WorkerEvent::Started { .. } | WorkerEvent::Progress(_) => {}
            }
        }
    }

    /// After a run document changed: the compare view takes it, and it is autosaved.
    fn run_changed(&mut self, index: usize) {
        self.changed(index, false);
        let Some(folder) = &self.results_folder else {
            return;
        };
        if let Err(e) = self.documents.autosave(index, folder) {
            self.message = Some((true, format!("cannot autosave the run: {e}")));
        }
    }

    /// What the window gives this frame: dropped files, Ctrl+O and Ctrl+S, and an answered file
    /// question.
    fn input_commands(&mut self, ui: &mut egui::Ui) -> Vec<Command> {
        let dropped: Vec<PathBuf> = ui.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        let mut commands: Vec<Command> = Vec::new();
        if !dropped.is_empty() {
            commands.push(Command::OpenPaths(dropped));
        }
        let (open, save) = ui.input_mut(|i| {
            (
                i.consume_key(egui::Modifiers::COMMAND, egui::Key::O),
                i.consume_key(egui::Modifiers::COMMAND, egui::Key::S),
            )
        });
        // A file question already open takes the keys' place.
        if self.pending.is_none() {
            if open {
                commands.push(Command::Open);
            } else if save {
                commands.push(Command::Save);
            }
        }
        if let Some(decision) = files::show(ui.ctx(), &mut self.pending) {
            commands.push(Command::Decided(decision));
        }
        commands
    }

    /// Draws the whole app into `ui` (the window's root, or a test harness).
    pub fn show(&mut self, ui: &mut egui::Ui) {
        self.poll_worker();
        for command in self.input_commands(ui) {
            self.apply(ui.ctx(), command);
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
        let mut commands = Vec::new();
        egui::Panel::top("files")
            .frame(side)
            .show(ui, |ui| commands.extend(self.files_bar(ui)));
        // The Playground needs only the adapter from the left: the experiments' tree gives its
        // width to the source (at 1280 wide the gutter's lines were cut short).
        let compact = self.state.tab == Tab::Playground;
        let left = if compact {
            egui::Panel::left("experiments_compact").default_size(220.0)
        } else {
            egui::Panel::left("experiments").default_size(300.0)
        };
        left.frame(side).resizable(true).show(ui, |ui| {
            let panel = LeftPanel {
                adapters: &self.adapters,
                shown: self.documents.shown().map(|d| &d.doc),
                runner: &self.runner,
                compact,
            };
            egui::ScrollArea::vertical()
                .show(ui, |ui| commands.extend(panel.ui(ui, &mut self.state)));
        });
        egui::CentralPanel::default()
            .frame(central)
            .show(ui, |ui| commands.extend(self.central(ui)));
        for command in commands {
            self.apply(ui.ctx(), command);
        }
        self.closing(ui.ctx());
    }

    /// The tabs and the view of the one chosen.
    fn central(&mut self, ui: &mut egui::Ui) -> Option<Command> {
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.state.tab, Tab::Experiment, "Experiment");
            ui.selectable_value(&mut self.state.tab, Tab::Compare, "Compare");
            ui.selectable_value(&mut self.state.tab, Tab::Playground, "Playground");
        });
        ui.separator();
        match self.state.tab {
            Tab::Experiment => {
                let shown = Shown {
                    state: &self.state,
                    adapters: &self.adapters,
                    documents: &mut self.documents,
                    runner: &self.runner,
                };
                egui::ScrollArea::vertical()
                    .id_salt("experiment_view")
                    .show(ui, |ui| self.experiment.ui(ui, shown))
                    .inner
            }
            Tab::Compare => {
                // One selection for both views: the tree's, or the one Compare's own picker
                // makes.
                egui::ScrollArea::vertical()
                    .id_salt("compare_view")
                    .show(ui, |ui| self.compare.ui(ui, &mut self.state.selected));
                None
            }
            Tab::Playground => match self.state.playground.ui(ui, self.state.adapter) {
                Some(PlaygroundAction::SaveProfile) => {
                    self.ask_save(SaveTarget::Profile);
                    None
                }
                Some(PlaygroundAction::SavePicture(i)) => {
                    self.ask_save(SaveTarget::Picture(i));
                    None
                }
                None => None,
            },
        }
    }

    fn files_bar(&mut self, ui: &mut egui::Ui) -> Option<Command> {
        let shown = self.documents.shown();
        let command = ui
            .horizontal(|ui| {
                let open = ui
                    .button("Open…")
                    .on_hover_text(
                        "A result file or a profile (`divlab profile --json`, .json), or a kernel \
                         (.wgsl); Ctrl+O",
                    )
                    .clicked()
                    .then_some(Command::Open);
                let playground = self.state.tab == Tab::Playground;
                let hover = if playground {
                    match &self.state.playground.path {
                        Some(path) => format!("Write the kernel to {}; Ctrl+S", path.display()),
                        None => "Choose where to write the kernel (.wgsl); Ctrl+S".to_owned(),
                    }
                } else {
                    match shown {
                        Some(d) => match &d.file {
                            Some(path) => {
                                format!("Write the shown document to {}; Ctrl+S", path.display())
                            }
                            None => "Choose where to write the shown document; Ctrl+S".to_owned(),
                        },
                        None => "Nothing to save yet".to_owned(),
                    }
                };
                let can_save = playground || shown.is_some();
                let save = ui
                    .add_enabled(can_save, egui::Button::new("Save"))
                    .on_hover_text(hover)
                    .clicked()
                    .then_some(Command::Save);
                let save_as = ui
                    .add_enabled(can_save, egui::Button::new("Save As…"))
                    .clicked()
                    .then_some(Command::SaveAs);
                match shown {
                    Some(d) => ui.weak(format!("{} · {}", d.label, d.file_state())),
                    None => ui.weak("(or drop .json / .wgsl files on the window)"),
                };
                open.or(save).or(save_as)
            })
            .inner;
        // One line, always there (a blank one without a message), so nothing below moves when
        // a message comes or goes; a long message is cut, and shows whole on hover.
        let (text, colour) = match &self.message {
            Some((true, text)) => (text.as_str(), Color32::from_rgb(220, 60, 60)),
            Some((false, text)) => (text.as_str(), ui.visuals().text_color()),
            None => (" ", ui.visuals().text_color()),
        };
        ui.add(egui::Label::new(RichText::new(text).color(colour)).truncate());
        command
    }
}

impl DivlabApp {
    /// As a run begins, saves the state and leaves the marker a session that ends in the run
    /// is told by; as it ends, removes the marker.
    fn run_began_or_ended(&mut self, running: bool, frame: &mut eframe::Frame) {
        self.was_running = running;
        let Some(marker) = &self.fault_report else {
            return;
        };
        if !running {
            marker.ended();
            return;
        }
        let what = if self.state.playground.running() {
            format!("the profile of {}", self.state.playground.file_name())
        } else {
            "a run of the experiments".to_owned()
        };
        marker.began(&what);
        if let Some(storage) = frame.storage_mut() {
            eframe::App::save(self, storage);
            storage.flush();
        }
    }
}

impl eframe::App for DivlabApp {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        self.show(ui);
        // A driver that faults ends the app with the run: the kernel it ran is saved first.
        let running = self.running() || self.state.playground.running();
        if running != self.was_running {
            self.run_began_or_ended(running, frame);
        }
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

/// Whether the JSON file at `path` is a profile document (`divlab profile --json`) rather than
/// a result document ([`crate::profile::report::is_profile`]). A file too large to be one, or
/// unreadable, is left to the result reader and its messages.
fn is_profile_document(path: &Path) -> bool {
    use crate::profile::report::{MAX_PROFILE_BYTES, is_profile};
    let fits = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() <= MAX_PROFILE_BYTES);
    fits && std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|value| is_profile(&value))
}
