//! One experiment's view: its rule, then charts, verdicts, lane grid and metrics from the shown
//! document, and its kernel source coloured by the static uniformity analysis.

use std::collections::HashMap;

use eframe::egui::{self, Color32, RichText};

use super::lane_grid::{self, LaneCache, LaneGrid};
use super::{DivlabApp, charts, source_view, verdicts};
use crate::experiments::{Experiment, registry};
use crate::report::{ExperimentResult, ExperimentStatus};
use crate::uniformity::Analysis;

impl DivlabApp {
    pub(super) fn experiment_view(&mut self, ui: &mut egui::Ui) {
        self.document_switcher(ui);
        let Some(id) = self.state.selected.clone() else {
            self.start_page(ui);
            return;
        };
        let Some(experiment) = registry().into_iter().find(|e| e.id() == id) else {
            ui.weak(format!("`{id}` is not an experiment of this divlab."));
            return;
        };
        let info = experiment.info();
        let running = self
            .running_experiment()
            .filter(|(running, _)| *running == id)
            .map(|(_, fraction)| fraction);
        ui.horizontal(|ui| {
            ui.heading(format!("{id} — {}", info.title));
            if running.is_some() {
                self.cancel_button(ui);
            } else if ui
                .add_enabled(self.worker.is_none(), egui::Button::new("Run"))
                .on_hover_text(self.run_cost_hint())
                .clicked()
            {
                self.start_run(ui.ctx(), vec![id.clone()]);
            }
        });
        ui.add(
            egui::Label::new(
                RichText::new(format!("Rule ({}): {}", info.source, info.rule)).italics(),
            )
            .wrap(),
        );
        if let Some(fraction) = running {
            ui.add(
                egui::ProgressBar::new(fraction as f32)
                    .text(format!("running on the worker: {:.0}%", fraction * 100.0)),
            );
        }
        // Borrowed field by field (not through `self.result`), so the sections below can keep
        // their caches in `self` without cloning the result every frame.
        let result = self
            .documents
            .get(self.current)
            .and_then(|d| d.doc.experiments.iter().find(|e| e.id == id));
        let Some(result) = result else {
            ui.weak(if running.is_some() {
                "Running: the results show here when the experiment finishes."
            } else {
                "Not run yet in the shown document: click Run, or open a result file that has it."
            });
            source_section(ui, experiment.as_ref(), None, &mut self.analyses, None);
            return;
        };
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
                charts::experiment_charts(ui, result, info.fit.as_ref());
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
            .show(ui, |ui| {
                lane_section(ui, result, &mut self.points, &mut self.lane_caches);
            });
        egui::CollapsingHeader::new("Metrics")
            .default_open(false)
            .show(ui, |ui| {
                egui::Grid::new(("metrics", &id))
                    .striped(true)
                    .show(ui, |ui| {
                        for (name, value) in &result.metrics {
                            ui.label(name);
                            ui.monospace(format_metric(*value));
                            ui.end_row();
                        }
                    });
            });
        let focus = self
            .source_focus
            .as_mut()
            .filter(|(focused, _)| *focused == id)
            .map(|(_, focus)| focus);
        source_section(
            ui,
            experiment.as_ref(),
            Some(result),
            &mut self.analyses,
            focus,
        );
    }
}

/// The record point slider, a legend, and the lane grid at that point. `points` keeps the point
/// per experiment id, `caches` the ballot colours and textures of each experiment's records.
fn lane_section(
    ui: &mut egui::Ui,
    result: &ExperimentResult,
    points: &mut HashMap<String, usize>,
    caches: &mut HashMap<String, LaneCache>,
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
