//! The desktop app: the experiment tree, charts, lane grids, verdicts, uniformity-coloured
//! source, a WGSL playground and a compare view, all drawn from the library's result document.
//!
//! Every experiment in [`crate::experiments::registry`] appears here without code for it: the
//! tree groups ids by family (the prefix before `.`), charts come from the generic `series`,
//! the lane grid from `lanes`, and the kernel source by the one-name-per-kernel convention.
//! Persisted settings ([`State`]) live apart from runtime handles (device list, worker).

pub mod charts;
pub mod compare;
pub mod lane_grid;
pub mod playground;
pub mod source_view;
pub mod verdicts;
pub mod worker;

use std::collections::HashMap;
use std::path::Path;

use eframe::egui::{self, Color32, RichText};
use serde::{Deserialize, Serialize};

use crate::experiments::{RunConfig, registry};
use crate::gpu::{AdapterSelector, adapters};
use crate::report::{ExperimentResult, ExperimentStatus, ResultDocument, read_json, write_json};
use crate::uniformity::Analysis;
use compare::CompareView;
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
    /// The result document shown (from a run or a file).
    pub doc: Option<ResultDocument>,
    worker: Option<Worker>,
    progress: Progress,
    /// The last message: `(is_error, text)`.
    pub message: Option<(bool, String)>,
    /// The compare view.
    pub compare: CompareView,
    playground: Playground,
    analyses: HashMap<&'static str, Result<Analysis, String>>,
    points: HashMap<String, usize>,
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

    /// Shows a document, and adds it to the compare view under `label`.
    pub fn open_document(&mut self, label: String, doc: ResultDocument) {
        if self.state.selected.is_none() {
            self.state.selected = doc.experiments.first().map(|e| e.id.clone());
        }
        self.compare.add(label, doc.clone());
        self.doc = Some(doc);
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
            Some(doc)
                if doc.adapter.name == run.adapter.name
                    && doc.adapter.backend == run.adapter.backend =>
            {
                for result in run.experiments {
                    match doc.experiments.iter_mut().find(|e| e.id == result.id) {
                        Some(slot) => *slot = result,
                        None => doc.experiments.push(result),
                    }
                }
            }
            _ => self.doc = Some(run),
        }
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

    fn left_panel(&mut self, ui: &mut egui::Ui) {
        let heading = ui.heading("Adapter");
        let selected = match self.state.adapter {
            None => "default".to_owned(),
            Some(i) => self
                .adapters
                .iter()
                .find(|a| a.index == i)
                .map_or_else(|| format!("#{i}"), |a| a.label.clone()),
        };
        egui::ComboBox::from_id_salt("adapter")
            .selected_text(selected)
            .width(ui.available_width())
            .truncate()
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut self.state.adapter, None, "default");
                for a in &self.adapters {
                    ui.selectable_value(&mut self.state.adapter, Some(a.index), &a.label);
                }
            })
            .response
            .labelled_by(heading.id);
        if self.adapters.is_empty() {
            ui.colored_label(
                Color32::from_rgb(220, 60, 60),
                "No adapter found (install a Vulkan driver, e.g. Mesa's lavapipe).",
            );
        }
        if let Some(doc) = &self.doc {
            let a = &doc.adapter;
            ui.weak(format!(
                "shown: {} ({}, {}), observed SG {}",
                a.name,
                a.backend,
                a.driver,
                a.observed_subgroup_size
                    .map_or("?".to_owned(), |s| s.to_string())
            ));
        }
        ui.separator();
        ui.heading("Run");
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.state.quick, "quick");
            let label = ui.label("reps");
            ui.add(egui::DragValue::new(&mut self.state.reps).range(0..=1000))
                .labelled_by(label.id)
                .on_hover_text(
                    "Timed repetitions per configuration; 0 for the default (15, 5 with quick)",
                );
        });
        ui.horizontal(|ui| {
            let idle = self.worker.is_none();
            if ui.add_enabled(idle, egui::Button::new("Run all")).clicked() {
                let ids = registry().iter().map(|e| e.id().to_owned()).collect();
                self.start_run(ui.ctx(), ids);
            }
            if let Some(worker) = &self.worker
                && ui
                    .add_enabled(!worker.cancelling(), egui::Button::new("Cancel"))
                    .clicked()
            {
                worker.cancel();
            }
        });
        if self.worker.is_some() {
            let p = &self.progress;
            let overall = if p.total == 0 {
                0.0
            } else {
                (p.index as f64 + p.fraction) / p.total as f64
            };
            ui.add(
                egui::ProgressBar::new(overall as f32)
                    .text(format!("[{}/{}] {}", p.index + 1, p.total.max(1), p.id))
                    .animate(true),
            );
        }
        ui.separator();
        ui.heading("Experiments");
        let experiments = registry();
        let mut families: Vec<&str> = Vec::new();
        for e in &experiments {
            let family = e.id().split('.').next().unwrap_or(e.id());
            if !families.contains(&family) {
                families.push(family);
            }
        }
        for family in families {
            egui::CollapsingHeader::new(family)
                .default_open(true)
                .show(ui, |ui| {
                    for e in experiments
                        .iter()
                        .filter(|e| e.id().split('.').next() == Some(family))
                    {
                        let rule = e.rule();
                        // A dot: none (not run), grey (unsupported/error), red (a violation),
                        // green (ran). Painted, so no font needs the glyph.
                        let mark = match self.result(e.id()) {
                            None => None,
                            Some(r) if r.status != ExperimentStatus::Ok => Some(Color32::GRAY),
                            Some(r) if r.has_violation() => Some(Color32::from_rgb(220, 60, 60)),
                            Some(_) => Some(Color32::from_rgb(60, 170, 80)),
                        };
                        ui.horizontal(|ui| {
                            let (dot, _) = ui
                                .allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
                            match mark {
                                Some(colour) => {
                                    ui.painter().circle_filled(dot.center(), 4.0, colour);
                                }
                                None => {
                                    ui.painter().circle_stroke(
                                        dot.center(),
                                        4.0,
                                        egui::Stroke::new(1.0, Color32::GRAY),
                                    );
                                }
                            }
                            let is_selected = self.state.selected.as_deref() == Some(e.id());
                            if ui
                                .selectable_label(is_selected, e.id())
                                .on_hover_text(e.title())
                                .clicked()
                            {
                                self.state.selected = Some(e.id().to_owned());
                                self.state.tab = Tab::Experiment;
                            }
                        });
                        ui.add(
                            egui::Label::new(
                                RichText::new(format!("{} — {}", rule.source, rule.text))
                                    .small()
                                    .weak(),
                            )
                            .truncate(),
                        )
                        .on_hover_text(&rule.text);
                    }
                });
        }
    }

    fn experiment_view(&mut self, ui: &mut egui::Ui) {
        let Some(id) = self.state.selected.clone() else {
            ui.weak("Select an experiment on the left.");
            return;
        };
        let Some(experiment) = registry().into_iter().find(|e| e.id() == id) else {
            ui.weak(format!("`{id}` is not an experiment of this divlab."));
            return;
        };
        ui.horizontal(|ui| {
            ui.heading(format!("{id} — {}", experiment.title()));
            if ui
                .add_enabled(self.worker.is_none(), egui::Button::new("Run"))
                .clicked()
            {
                self.start_run(ui.ctx(), vec![id.clone()]);
            }
        });
        let rule = experiment.rule();
        ui.label(RichText::new(format!("Rule ({}): {}", rule.source, rule.text)).italics());
        let Some(result) = self.result(&id).cloned() else {
            ui.weak("Not run yet: click Run, or open a result file that has it.");
            self.source_section(ui, &id);
            return;
        };
        if result.status != ExperimentStatus::Ok {
            ui.colored_label(
                Color32::GRAY,
                format!("{:?}: {}", result.status, result.status_detail),
            );
        }
        egui::CollapsingHeader::new("Charts")
            .default_open(true)
            .show(ui, |ui| {
                charts::experiment_charts(ui, &result);
            });
        egui::CollapsingHeader::new("Verdicts")
            .default_open(true)
            .show(ui, |ui| {
                verdicts::verdicts_table(ui, &result);
            });
        egui::CollapsingHeader::new("Lane grid")
            .default_open(true)
            .show(ui, |ui| {
                self.lane_section(ui, &result);
            });
        egui::CollapsingHeader::new("Metrics")
            .default_open(false)
            .show(ui, |ui| {
                egui::Grid::new(("metrics", &id))
                    .striped(true)
                    .show(ui, |ui| {
                        for (name, value) in &result.metrics {
                            ui.label(name);
                            ui.monospace(format!("{value:.6}"));
                            ui.end_row();
                        }
                    });
            });
        self.source_section(ui, &id);
    }

    fn lane_section(&mut self, ui: &mut egui::Ui, result: &ExperimentResult) {
        if result.lanes.is_empty() {
            ui.weak("This experiment records no lanes.");
            return;
        }
        let points = lane_grid::record_points(&result.lanes);
        let index = self.points.entry(result.id.clone()).or_default();
        *index = (*index).min(points.len() - 1);
        ui.horizontal(|ui| {
            let text = format!("record point {}", points[*index]);
            ui.add_enabled(
                points.len() > 1,
                egui::Slider::new(index, 0..=points.len() - 1)
                    .show_value(false)
                    .text(text),
            );
            if let Some(what) = result.params.get("points") {
                ui.weak(what.to_string())
                    .on_hover_text("What the experiment records at each point");
            }
        });
        ui.horizontal(|ui| {
            ui.label(RichText::new("   ").background_color(lane_grid::INACTIVE));
            ui.weak("never reached the point;");
            ui.weak("colours: one per ballot (lanes that ran together). Hover a lane for its ids and value.");
        });
        lane_grid::LaneGrid::new(&result.lanes, points[*index]).show(ui);
    }

    fn source_section(&mut self, ui: &mut egui::Ui, id: &str) {
        let Some((stem, source)) = source_view::shader_for(id) else {
            return;
        };
        let analysis = self.analyses.entry(stem).or_insert_with(|| {
            crate::uniformity::analyze_source(&format!("shaders/{stem}.wgsl"), source)
                .map_err(|e| e.to_string())
        });
        egui::CollapsingHeader::new(format!("Source: shaders/{stem}.wgsl"))
            .default_open(false)
            .show(ui, |ui| match analysis {
                Ok(analysis) => source_view::source_view(ui, ("source", stem), source, analysis),
                Err(e) => {
                    ui.colored_label(
                        Color32::from_rgb(220, 60, 60),
                        format!("no static analysis: {e}"),
                    );
                    for (n, line) in source.lines().enumerate() {
                        ui.monospace(format!("{:>4}  {line}", n + 1));
                    }
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
