//! The compare view: several result documents, their curves overlaid per experiment and a
//! verdict-by-device table.

use eframe::egui::{self, RichText};

use super::charts::{group_series, plot_group};
use super::verdicts::status_label;
use crate::report::ResultDocument;

/// Loaded documents and the experiment whose curves are overlaid.
#[derive(Default)]
pub struct CompareView {
    /// Each document with the label it is shown under (its file name).
    pub docs: Vec<(String, ResultDocument)>,
    /// The experiment whose series are overlaid.
    pub experiment: Option<String>,
}

impl CompareView {
    /// Adds a document; one with the same label replaces the old one.
    pub fn add(&mut self, label: String, doc: ResultDocument) {
        match self.docs.iter_mut().find(|(l, _)| *l == label) {
            Some(slot) => slot.1 = doc,
            None => self.docs.push((label, doc)),
        }
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

    /// The view.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        if self.docs.is_empty() {
            ui.weak(
                "Open result files (path field above, or drop them on the window) to compare them.",
            );
            return;
        }
        let mut remove = None;
        ui.horizontal_wrapped(|ui| {
            ui.label("Documents:");
            for (i, (label, doc)) in self.docs.iter().enumerate() {
                ui.label(RichText::new(label).strong())
                    .on_hover_text(format!("{} ({})", doc.adapter.name, doc.adapter.backend));
                if ui.small_button("x").on_hover_text("Remove").clicked() {
                    remove = Some(i);
                }
            }
        });
        if let Some(i) = remove {
            self.docs.remove(i);
        }
        let ids: Vec<String> = self.ids().into_iter().map(str::to_owned).collect();
        if self.experiment.as_ref().is_none_or(|e| !ids.contains(e)) {
            self.experiment = ids
                .iter()
                .find(|id| self.has_series(id))
                .or(ids.first())
                .cloned();
        }
        egui::ComboBox::from_label("Experiment")
            .selected_text(self.experiment.clone().unwrap_or_default())
            .show_ui(ui, |ui| {
                for id in &ids {
                    ui.selectable_value(&mut self.experiment, Some(id.clone()), id);
                }
            });
        if let Some(id) = self.experiment.clone() {
            let curves = self.docs.iter().flat_map(|(label, doc)| {
                doc.experiments
                    .iter()
                    .filter(|e| e.id == id)
                    .flat_map(move |e| {
                        e.series
                            .iter()
                            .map(move |s| (format!("{label}: {}", s.name), s))
                    })
            });
            let groups = group_series(curves);
            if groups.is_empty() {
                ui.weak("No series for this experiment.");
            }
            for (index, group) in groups.iter().enumerate() {
                plot_group(ui, format!("compare/{id}/{index}"), group, None);
            }
        }
        ui.separator();
        ui.heading("Verdicts by device");
        self.verdict_table(ui, &ids);
    }

    fn has_series(&self, id: &str) -> bool {
        self.docs.iter().any(|(_, d)| {
            d.experiments
                .iter()
                .any(|e| e.id == id && !e.series.is_empty())
        })
    }

    fn verdict_table(&self, ui: &mut egui::Ui, ids: &[String]) {
        egui::Grid::new("compare_verdicts")
            .striped(true)
            .num_columns(1 + self.docs.len())
            .show(ui, |ui| {
                ui.strong("experiment: check");
                for (label, doc) in &self.docs {
                    ui.strong(label).on_hover_text(&doc.adapter.name);
                }
                ui.end_row();
                for id in ids {
                    let mut checks: Vec<&str> = Vec::new();
                    for (_, doc) in &self.docs {
                        for e in doc.experiments.iter().filter(|e| &e.id == id) {
                            for v in &e.verdicts {
                                if !checks.contains(&v.check.as_str()) {
                                    checks.push(&v.check);
                                }
                            }
                        }
                    }
                    for check in checks {
                        ui.add(egui::Label::new(format!("{id}: {check}")).truncate());
                        for (_, doc) in &self.docs {
                            let verdict = doc
                                .experiments
                                .iter()
                                .filter(|e| &e.id == id)
                                .flat_map(|e| &e.verdicts)
                                .find(|v| v.check == check);
                            match verdict {
                                Some(v) => {
                                    ui.label(status_label(v.status)).on_hover_text(&v.detail);
                                }
                                None => {
                                    ui.weak("—");
                                }
                            }
                        }
                        ui.end_row();
                    }
                }
            });
    }
}
