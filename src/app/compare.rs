//! The compare view: several result documents, their curves overlaid per experiment, and their
//! verdicts by device, matched across the documents as `divlab compare` matches them.

use eframe::egui::{self, RichText, accesskit::Role};

use super::charts::{Curve, PlotOptions, group_series, palette, plot_curves};
use super::verdicts::status_label;
use crate::experiments::catalog;
use crate::report::{Comparison, ResultDocument, VerdictRow};

/// What the view says before any file is open: how to open one, and where one comes from.
pub const EMPTY: &str = "Open result files with Open… (or drop them on the window) to compare \
    them. Save As… after Run all in the Experiment tab writes one, as `divlab --bench --json \
    FILE` does; the repository's assets/reference/ holds the H200's, the H100's and lavapipe's.";

/// Loaded documents, overlaid and compared; the experiment shown is the app's selection.
#[derive(Default)]
pub struct CompareView {
    /// Each document with the label it is shown under (its file name).
    docs: Vec<(String, ResultDocument)>,
    /// The documents compared; built again only when they change.
    comparison: Option<Comparison>,
    /// Time axes on a log scale: devices' times differ 100x.
    pub log_y: bool,
}

impl CompareView {
    /// Adds a document; one with the same label replaces the old one.
    pub fn add(&mut self, label: String, doc: ResultDocument) {
        match self.docs.iter_mut().find(|(l, _)| *l == label) {
            Some(slot) => slot.1 = doc,
            None => self.docs.push((label, doc)),
        }
        self.comparison = None;
    }

    /// Removes the document at `index`.
    pub fn remove(&mut self, index: usize) {
        self.docs.remove(index);
        self.comparison = None;
    }

    /// Each document with its label, in the order added.
    pub fn docs(&self) -> &[(String, ResultDocument)] {
        &self.docs
    }

    /// The documents compared, as `divlab compare` compares them.
    pub fn comparison(&mut self) -> &Comparison {
        self.comparison
            .get_or_insert_with(|| Comparison::new(&self.docs, &catalog()))
    }

    /// Every experiment id of every document, in first-appearance order.
    fn ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = Vec::new();
        for (_, doc) in &self.docs {
            for e in &doc.experiments {
                if !ids.contains(&e.id.as_str()) {
                    ids.push(&e.id);
                }
            }
        }
        ids
    }

    /// The view. `selected` is the experiment whose series are overlaid: the app's one
    /// selection, which the view's own picker changes too.
    pub fn ui(&mut self, ui: &mut egui::Ui, selected: &mut Option<String>) {
        if self.docs.is_empty() {
            ui.weak(EMPTY);
            return;
        }
        if let Some(i) = self.documents_key(ui) {
            self.remove(i);
            if self.docs.is_empty() {
                return;
            }
        }
        let ids: Vec<String> = self.ids().into_iter().map(str::to_owned).collect();
        if selected.as_ref().is_none_or(|e| !ids.contains(e)) {
            *selected = ids
                .iter()
                .find(|id| self.has_series(id))
                .or(ids.first())
                .cloned();
        }
        egui::ComboBox::from_label("Experiment")
            .selected_text(selected.clone().unwrap_or_default())
            .show_ui(ui, |ui| {
                for id in &ids {
                    ui.selectable_value(selected, Some(id.clone()), id);
                }
            });
        ui.checkbox(&mut self.log_y, "log time axis").on_hover_text(
            "Devices' times differ 100x or more; on a linear axis the fast one is flat",
        );
        if let Some(id) = selected.as_deref() {
            self.charts(ui, id);
        }
        ui.separator();
        ui.heading("Verdicts by device");
        self.verdict_table(ui);
    }

    /// Each document in its colour, with a button that removes it; returns the one to remove.
    fn documents_key(&self, ui: &mut egui::Ui) -> Option<usize> {
        let mut remove = None;
        ui.horizontal_wrapped(|ui| {
            ui.label("Documents:");
            // Each document's colour in every chart below.
            for (i, (label, doc)) in self.docs.iter().enumerate() {
                super::charts::marker(ui, egui_plot::MarkerShape::Circle, palette(i));
                ui.label(RichText::new(label).strong())
                    .on_hover_text(format!("{} ({})", doc.adapter.name, doc.adapter.backend));
                if ui.small_button("x").on_hover_text("Remove").clicked() {
                    remove = Some(i);
                }
            }
        });
        remove
    }

    /// Experiment `id`'s series of every document, overlaid: one plot per axis pair, one colour
    /// per document, one marker shape per series.
    fn charts(&self, ui: &mut egui::Ui, id: &str) {
        let mut shapes: Vec<String> = Vec::new();
        // Each series tagged with its document, whose colour it takes.
        let tagged = self
            .docs
            .iter()
            .enumerate()
            .flat_map(|(doc_index, (label, doc))| {
                doc.experiments
                    .iter()
                    .filter(|e| e.id == id)
                    .flat_map(move |e| {
                        e.series
                            .iter()
                            .map(move |s| ((doc_index, format!("{label}: {}", s.name)), s))
                    })
            });
        let groups = group_series(tagged);
        if groups.is_empty() {
            ui.weak("No series for this experiment.");
        }
        for (index, group) in groups.iter().enumerate() {
            let curves = group
                .curves
                .iter()
                .map(|((doc_index, name), series)| {
                    let shape_index = match shapes.iter().position(|s| *s == series.name) {
                        Some(i) => i,
                        None => {
                            shapes.push(series.name.clone());
                            shapes.len() - 1
                        }
                    };
                    Curve {
                        name: name.clone(),
                        series,
                        colour: palette(*doc_index),
                        shape: MARKERS[shape_index % MARKERS.len()],
                    }
                })
                .collect::<Vec<_>>();
            series_key(ui, &curves);
            let options = PlotOptions {
                log_time: self.log_y,
                no_legend: true,
            };
            plot_curves(
                ui,
                format!("compare/{id}/{index}"),
                group,
                curves,
                None,
                options,
            );
        }
    }

    fn has_series(&self, id: &str) -> bool {
        self.docs.iter().any(|(_, d)| {
            d.experiments
                .iter()
                .any(|e| e.id == id && !e.series.is_empty())
        })
    }

    /// One group per experiment, one row per check as [`Comparison`] matches them across the
    /// documents, one column per document; the detail shows on hover.
    fn verdict_table(&mut self, ui: &mut egui::Ui) {
        let headers: Vec<DeviceHeader> = self.docs.iter().map(DeviceHeader::new).collect();
        let comparison = self.comparison();
        // Every group is its own grid; fixed column widths keep their columns aligned.
        let spacing = ui.spacing().item_spacing.x;
        let check_width =
            (ui.available_width() - headers.len() as f32 * (STATUS_WIDTH + spacing) - spacing)
                .clamp(200.0, 560.0);
        egui::Grid::new("compare_verdict_headers")
            .num_columns(1 + headers.len())
            .min_col_width(STATUS_WIDTH)
            .show(ui, |ui| {
                fixed_width(ui, check_width, |ui| {
                    ui.strong("check");
                });
                for header in &headers {
                    fixed_width(ui, STATUS_WIDTH, |ui| header.ui(ui));
                }
                ui.end_row();
            });
        for table in comparison
            .experiments
            .iter()
            .filter(|t| !t.verdicts.is_empty())
        {
            let group = egui::UiBuilder::new()
                .id_salt(("compare_verdicts", &table.id))
                .accessibility_role(Role::Group)
                .accessibility_label(&table.id);
            ui.scope_builder(group, |ui| {
                ui.add_space(4.0);
                ui.label(RichText::new(format!("{} — {}", table.id, table.title)).strong());
                egui::Grid::new(("compare_verdicts", &table.id))
                    .striped(true)
                    .num_columns(1 + headers.len())
                    .min_col_width(STATUS_WIDTH)
                    .show(ui, |ui| {
                        for row in &table.verdicts {
                            verdict_row(ui, row, check_width);
                            ui.end_row();
                        }
                    });
            });
        }
    }
}

/// The key above a plot: each series name once, with its marker (or dashes for a model).
fn series_key(ui: &mut egui::Ui, curves: &[Curve<'_>]) {
    ui.horizontal_wrapped(|ui| {
        let mut seen: Vec<&str> = Vec::new();
        for curve in curves {
            let name = curve.series.name.as_str();
            if !seen.contains(&name) {
                seen.push(name);
                if name.ends_with("_model") {
                    ui.weak("- - -");
                } else {
                    let colour = ui.visuals().text_color();
                    super::charts::marker(ui, curve.shape, colour);
                }
                ui.weak(name);
            }
        }
    });
}

/// Marker shapes, one per series name within a chart.
const MARKERS: [egui_plot::MarkerShape; 5] = [
    egui_plot::MarkerShape::Circle,
    egui_plot::MarkerShape::Square,
    egui_plot::MarkerShape::Diamond,
    egui_plot::MarkerShape::Up,
    egui_plot::MarkerShape::Cross,
];

/// The width of a document's column.
const STATUS_WIDTH: f32 = 150.0;

/// Runs `add_contents` in a cell exactly `width` wide, so text wraps at it.
fn fixed_width(ui: &mut egui::Ui, width: f32, add_contents: impl FnOnce(&mut egui::Ui)) {
    ui.vertical(|ui| {
        ui.set_width(width);
        add_contents(ui);
    });
}

/// One matched check: its wording (numbers that differ between devices read `n`), then each
/// document's status.
fn verdict_row(ui: &mut egui::Ui, row: &VerdictRow, check_width: f32) {
    // A scope, not a vertical: it keeps the grid's centring, so the check lines up with its
    // statuses.
    ui.scope(|ui| {
        ui.set_width(check_width);
        let text = RichText::new(&row.check);
        if row.differs() {
            ui.add(egui::Label::new(text.strong()).wrap())
                .on_hover_text("The devices' verdicts differ.");
        } else {
            ui.add(egui::Label::new(text).wrap());
        }
    });
    for (status, detail) in row.statuses.iter().zip(&row.details) {
        match status {
            Some(status) => {
                let label = ui.label(status_label(*status));
                if let Some(detail) = detail {
                    label.on_hover_text(detail);
                }
            }
            None => {
                ui.weak("—").on_hover_text("Not in this document.");
            }
        }
    }
}

/// A column header: the device, then the file and the observed subgroup size.
struct DeviceHeader {
    device: String,
    file: String,
    hover: String,
}

impl DeviceHeader {
    fn new((label, doc): &(String, ResultDocument)) -> Self {
        let a = &doc.adapter;
        let subgroup = a
            .observed_subgroup_size
            .map_or_else(String::new, |s| format!(" · SG {s}"));
        Self {
            device: a.name.clone(),
            file: format!("{label}{subgroup}"),
            hover: format!("{} ({}, {} {})", a.name, a.backend, a.driver, a.driver_info),
        }
    }

    fn ui(&self, ui: &mut egui::Ui) {
        ui.add(egui::Label::new(RichText::new(&self.device).strong()).wrap())
            .on_hover_text(&self.hover);
        ui.add(egui::Label::new(RichText::new(&self.file).weak()).wrap());
    }
}
