//! One experiment's view: its rule, then charts, verdicts, lane grid and metrics from the shown
//! document, and its kernel source coloured by the static uniformity analysis.

use std::collections::HashMap;

use eframe::egui::{self, Color32, RichText};

use super::lane_grid::{self, BallotColours, LaneGrid};
use super::{DivlabApp, charts, source_view, verdicts};
use crate::experiments::registry;
use crate::report::{ExperimentInfo, ExperimentResult, ExperimentStatus};
use crate::shaders::ShaderFile;
use crate::uniformity::Analysis;

impl DivlabApp {
    pub(super) fn experiment_view(&mut self, ui: &mut egui::Ui) {
        let Some(id) = self.state.selected.clone() else {
            ui.weak("Select an experiment on the left.");
            return;
        };
        let Some(info) = registry()
            .into_iter()
            .map(|e| e.info())
            .find(|info| info.id == id)
        else {
            ui.weak(format!("`{id}` is not an experiment of this divlab."));
            return;
        };
        ui.horizontal(|ui| {
            ui.heading(format!("{id} — {}", info.title));
            if ui
                .add_enabled(self.worker.is_none(), egui::Button::new("Run"))
                .clicked()
            {
                self.start_run(ui.ctx(), vec![id.clone()]);
            }
        });
        ui.label(RichText::new(format!("Rule ({}): {}", info.source, info.rule)).italics());
        // Borrowed field by field (not through `self.result`), so the sections below can keep
        // their caches in `self` without cloning the result every frame.
        let result = self
            .doc
            .as_ref()
            .and_then(|doc| doc.experiments.iter().find(|e| e.id == id));
        let Some(result) = result else {
            ui.weak("Not run yet: click Run, or open a result file that has it.");
            source_section(ui, &info, &mut self.analyses);
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
                charts::experiment_charts(ui, result, info.fit.as_ref());
            });
        egui::CollapsingHeader::new("Verdicts")
            .default_open(true)
            .show(ui, |ui| {
                verdicts::verdicts_table(ui, result);
            });
        egui::CollapsingHeader::new("Lane grid")
            .default_open(true)
            .show(ui, |ui| {
                lane_section(ui, result, &mut self.points, &mut self.lane_colours);
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
        source_section(ui, &info, &mut self.analyses);
    }
}

/// The record point slider, a legend, and the lane grid at that point. `points` keeps the point
/// per experiment id, `colours` the ballot colours of each experiment's records.
fn lane_section(
    ui: &mut egui::Ui,
    result: &ExperimentResult,
    points: &mut HashMap<String, usize>,
    colours: &mut HashMap<String, BallotColours>,
) {
    if result.lanes.is_empty() {
        ui.weak("This experiment records no lanes.");
        return;
    }
    let record_points = lane_grid::record_points(&result.lanes);
    let index = points.entry(result.id.clone()).or_default();
    *index = (*index).min(record_points.len() - 1);
    ui.horizontal(|ui| {
        let text = format!("record point {}", record_points[*index]);
        ui.add_enabled(
            record_points.len() > 1,
            egui::Slider::new(index, 0..=record_points.len() - 1)
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
        ui.weak(
            "colours: one per ballot (lanes that ran together), the same at every point. Hover \
             a lane for its ids and value.",
        );
    });
    let colours = colours
        .entry(result.id.clone())
        .or_insert_with(|| BallotColours::new(&result.lanes));
    LaneGrid::with_colours(&result.lanes, record_points[*index], colours).show(ui);
}

/// The kernels the experiment declares, each coloured by the static analysis (done once per
/// file, kept in `analyses`); plain numbered lines where the analysis fails.
fn source_section(
    ui: &mut egui::Ui,
    info: &ExperimentInfo,
    analyses: &mut HashMap<&'static str, Result<Analysis, String>>,
) {
    for file in info.shaders {
        shader_section(ui, file, analyses);
    }
}

fn shader_section(
    ui: &mut egui::Ui,
    file: &'static ShaderFile,
    analyses: &mut HashMap<&'static str, Result<Analysis, String>>,
) {
    let (path, source) = (file.path, file.source);
    let analysis = analyses.entry(path).or_insert_with(|| {
        crate::uniformity::analyze_source(path, source).map_err(|e| e.to_string())
    });
    egui::CollapsingHeader::new(format!("Source: {path}"))
        .default_open(false)
        .show(ui, |ui| match analysis {
            Ok(analysis) => source_view::source_view(ui, ("source", path), source, analysis),
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
