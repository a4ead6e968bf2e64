//! One experiment's view: its rule, then charts, verdicts, lane grid and metrics from the shown
//! document, and its kernel source coloured by the static uniformity analysis.

use std::collections::HashMap;

use eframe::egui::{self, Color32, RichText};

use super::adapters::Adapters;
use super::documents::{Documents, LaneCaches};
use super::lane_grid::{self, LaneCache, LaneGrid};
use super::runner::{Runner, run_cost_hint};
use super::start::StartPage;
use super::{Command, State, charts, source_view, verdicts};
use crate::experiments::{Experiment, registry};
use crate::report::{ExperimentInfo, ExperimentResult, ExperimentStatus, Fit};
use crate::uniformity::Analysis;

/// The Experiment tab's caches, kept across frames: static analyses, the line a verdict named,
/// the record point shown per experiment, and the start page.
#[derive(Default)]
pub struct ExperimentView {
    /// Static analysis per shader stem, done once.
    analyses: HashMap<String, Result<Analysis, String>>,
    /// A kernel line a verdict named and the user clicked, per experiment id.
    source_focus: Option<(String, source_view::Focus)>,
    /// The record point shown per experiment id.
    points: HashMap<String, usize>,
    start: StartPage,
}

/// What the Experiment tab shows from the rest of the app.
pub struct Shown<'a> {
    /// The settings: the selection, the adapter, quick.
    pub state: &'a State,
    /// The picker's adapters, for the start page.
    pub adapters: &'a Adapters,
    /// The documents, with the lane caches of the one shown.
    pub documents: &'a mut Documents,
    /// The run in progress.
    pub runner: &'a Runner,
}

impl ExperimentView {
    /// The view of the selected experiment (the start page while none is).
    pub fn ui(&mut self, ui: &mut egui::Ui, shown: Shown<'_>) -> Option<Command> {
        let switched = document_switcher(ui, shown.documents);
        let Some(id) = shown.state.selected.clone() else {
            self.start.ui(ui, shown.state.adapter, shown.adapters);
            return switched;
        };
        let Some(experiment) = registry().into_iter().find(|e| e.id() == id) else {
            ui.weak(format!("`{id}` is not an experiment of this divlab."));
            return switched;
        };
        let running = shown
            .runner
            .running_experiment()
            .filter(|(running, _)| *running == id)
            .map(|(_, fraction)| fraction);
        let info = experiment.info();
        let command = header(ui, &id, &info, &shown, running);
        let (document, caches) = shown.documents.shown_with_caches();
        let result = document.and_then(|d| d.doc.experiments.iter().find(|e| e.id == id));
        let Some(result) = result else {
            ui.weak(if running.is_some() {
                "Running: the results show here when the experiment finishes."
            } else {
                "Not run yet in the shown document: click Run, or open a result file that has it."
            });
            source_section(ui, experiment.as_ref(), None, &mut self.analyses, None);
            return switched.or(command);
        };
        let fit = info.fit.as_ref();
        self.result_sections(ui, experiment.as_ref(), fit, result, caches);
        switched.or(command)
    }

    /// Charts, verdicts, lane grid, metrics and sources of `result`.
    fn result_sections(
        &mut self,
        ui: &mut egui::Ui,
        experiment: &dyn Experiment,
        fit: Option<&Fit>,
        result: &ExperimentResult,
        caches: &mut LaneCaches,
    ) {
        let id = &result.id;
        if result.status != ExperimentStatus::Ok {
            ui.add(
                egui::Label::new(
                    RichText::new(format!(
                        "{}: {}",
                        result.status.as_str(),
                        result.status_detail
                    ))
                    .color(Color32::GRAY),
                )
                .wrap(),
            );
        }
        egui::CollapsingHeader::new("Charts")
            .default_open(true)
            .show(ui, |ui| {
                charts::experiment_charts(ui, result, fit);
            });
        egui::CollapsingHeader::new("Verdicts")
            .default_open(true)
            .show(ui, |ui| {
                if let Some(line) = verdicts::verdicts_table(ui, result) {
                    self.source_focus = Some((id.clone(), source_view::Focus { line, scroll: 20 }));
                }
            });
        egui::CollapsingHeader::new("Lane grid")
            .default_open(true)
            .show(ui, |ui| lane_section(ui, result, &mut self.points, caches));
        egui::CollapsingHeader::new("Metrics")
            .default_open(false)
            .show(ui, |ui| metrics_grid(ui, result));
        let focus = self
            .source_focus
            .as_mut()
            .filter(|(focused, _)| focused == id)
            .map(|(_, focus)| focus);
        source_section(ui, experiment, Some(result), &mut self.analyses, focus);
    }
}

/// The experiment's id and title with Run (or Cancel while it runs), its rule, and its progress.
fn header(
    ui: &mut egui::Ui,
    id: &str,
    info: &ExperimentInfo,
    shown: &Shown<'_>,
    running: Option<f64>,
) -> Option<Command> {
    let command = ui
        .horizontal(|ui| {
            ui.heading(format!("{id} — {}", info.title));
            if running.is_some() {
                shown.runner.cancel_button(ui)
            } else {
                ui.add_enabled(!shown.runner.running(), egui::Button::new("Run"))
                    .on_hover_text(run_cost_hint(shown.state.quick))
                    .clicked()
                    .then(|| Command::Run(vec![id.to_owned()]))
            }
        })
        .inner;
    ui.add(
        egui::Label::new(RichText::new(format!("Rule ({}): {}", info.source, info.rule)).italics())
            .wrap(),
    );
    if let Some(fraction) = running {
        ui.add(
            egui::ProgressBar::new(fraction as f32)
                .text(format!("running on the worker: {:.0}%", fraction * 100.0)),
        );
    }
    command
}

/// Which document the Experiment view shows, when there is more than one.
fn document_switcher(ui: &mut egui::Ui, documents: &Documents) -> Option<Command> {
    let all = documents.all();
    if all.len() < 2 {
        return None;
    }
    let mut current = documents.shown_index();
    ui.horizontal(|ui| {
        let label = ui.label("Document:");
        egui::ComboBox::from_id_salt("document")
            .selected_text(&all[current].label)
            .show_ui(ui, |ui| {
                for (index, d) in all.iter().enumerate() {
                    ui.selectable_value(&mut current, index, &d.label)
                        .on_hover_text(format!(
                            "{} ({}), {} experiments",
                            d.doc.adapter.name,
                            d.doc.adapter.backend,
                            d.doc.experiments.len()
                        ));
                }
            })
            .response
            .labelled_by(label.id);
    });
    (current != documents.shown_index()).then_some(Command::ShowDocument(current))
}

/// The result's metrics, by name.
fn metrics_grid(ui: &mut egui::Ui, result: &ExperimentResult) {
    egui::Grid::new(("metrics", &result.id))
        .striped(true)
        .show(ui, |ui| {
            for (name, value) in &result.metrics {
                ui.label(name);
                ui.monospace(format_metric(*value));
                ui.end_row();
            }
        });
}

/// The record point slider, a legend, and the lane grid at that point. `points` keeps the point
/// per experiment id, `caches` the ballot colours and textures of each experiment's records.
fn lane_section(
    ui: &mut egui::Ui,
    result: &ExperimentResult,
    points: &mut HashMap<String, usize>,
    caches: &mut LaneCaches,
) {
    if result.lanes.is_empty() {
        ui.weak("This experiment records no lanes.");
        return;
    }
    let record_points = lane_grid::record_points(&result.lanes);
    let index = points.entry(result.id.clone()).or_default();
    *index = (*index).min(record_points.len() - 1);
    // One button per record point, named where the experiment names its points: the current
    // one is shown selected, and any is one click away.
    let names = result.params.get("points").and_then(|p| p.as_array());
    ui.horizontal_wrapped(|ui| {
        ui.label("Record point:");
        for (i, point) in record_points.iter().enumerate() {
            let name = names
                .and_then(|n| n.get(*point as usize))
                .and_then(|n| n.as_str())
                .map_or_else(|| point.to_string(), |n| format!("{point}: {n}"));
            if ui.selectable_label(*index == i, name).clicked() {
                *index = i;
            }
        }
    });
    ui.horizontal(|ui| {
        ui.label(RichText::new("   ").background_color(lane_grid::INACTIVE));
        ui.weak("never reached the point;");
        ui.weak(
            "colours: one per ballot (lanes that ran together), the same at every point. Hover \
             a lane for its ids and value.",
        );
    });
    let cache = caches
        .entry(result.id.clone())
        .or_insert_with(|| LaneCache::new(&result.lanes));
    LaneGrid::cached(&result.lanes, record_points[*index], cache).show(ui);
}

/// The kernels that ran (as the experiment says: generated ones for the divergence study), each
/// coloured by the static analysis (done once per kernel, kept in `analyses`); plain numbered
/// lines where the analysis fails. Each pane is as tall as its source. A `focus` (a line a
/// verdict named) opens the first kernel at that line.
fn source_section(
    ui: &mut egui::Ui,
    experiment: &dyn Experiment,
    result: Option<&ExperimentResult>,
    analyses: &mut HashMap<String, Result<Analysis, String>>,
    mut focus: Option<&mut source_view::Focus>,
) {
    for (index, kernel) in experiment.sources(result).into_iter().enumerate() {
        let focus = if index == 0 { focus.take() } else { None };
        let open = focus.as_ref().is_some_and(|f| f.scroll > 0).then_some(true);
        let analysis = analyses.entry(kernel.name.clone()).or_insert_with(|| {
            crate::uniformity::analyze_source(&kernel.name, &kernel.source)
                .map_err(|e| e.to_string())
        });
        egui::CollapsingHeader::new(format!("Source: {}", kernel.name))
            .default_open(false)
            .open(open)
            .show(ui, |ui| match analysis {
                Ok(analysis) => source_view::source_view(
                    ui,
                    ("source", &kernel.name),
                    &kernel.source,
                    analysis,
                    focus,
                ),
                Err(e) => {
                    ui.add(
                        egui::Label::new(
                            RichText::new(format!("no static analysis: {e}"))
                                .color(Color32::from_rgb(220, 60, 60)),
                        )
                        .wrap(),
                    );
                    for (n, line) in kernel.source.lines().enumerate() {
                        ui.monospace(format!("{:>4}  {line}", n + 1));
                    }
                }
            });
    }
}

/// A metric as a reader wants it: counts as integers ("25", not "25.000000"), other values with
/// six significant digits.
pub fn format_metric(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else if value != 0.0 && (value.abs() >= 1e6 || value.abs() < 1e-3) {
        format!("{value:.5e}")
    } else {
        let decimals = (5 - value.abs().log10().floor() as i32).clamp(0, 9) as usize;
        format!("{value:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::format_metric;

    #[test]
    fn counts_print_as_integers() {
        assert_eq!(format_metric(25.0), "25");
        assert_eq!(format_metric(-3.0), "-3");
        assert_eq!(format_metric(0.98765432), "0.987654");
        assert_eq!(format_metric(12.3456789), "12.3457");
        assert_eq!(format_metric(2.5e7 + 0.5), "2.50000e7");
        assert_eq!(format_metric(0.0001234), "1.23400e-4");
    }
}
