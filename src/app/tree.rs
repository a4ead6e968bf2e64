//! The left panel: the adapter picker, the run controls, and every registered experiment grouped
//! by family (the id's prefix before `.`), each marked by its result in the shown document.

use eframe::egui::{self, Color32, RichText};

use super::{DivlabApp, Tab, start};
use crate::experiments::registry;
use crate::report::ExperimentStatus;

impl DivlabApp {
    pub(super) fn left_panel(&mut self, ui: &mut egui::Ui) {
        self.adapter_picker(ui);
        ui.separator();
        self.run_controls(ui);
        ui.separator();
        self.experiment_tree(ui);
    }

    fn adapter_picker(&mut self, ui: &mut egui::Ui) {
        let heading = ui.heading("Adapter");
        let selected = self.adapter_label(self.state.adapter);
        egui::ComboBox::from_id_salt("adapter")
            .selected_text(selected)
            .width(ui.available_width())
            .truncate()
            .show_ui(ui, |ui| {
                let default = self.adapter_label(None);
                ui.selectable_value(&mut self.state.adapter, None, default);
                for a in &self.adapters {
                    ui.selectable_value(&mut self.state.adapter, Some(a.index), &a.label);
                }
            })
            .response
            .labelled_by(heading.id);
        if self.adapters.is_empty() {
            ui.add(
                egui::Label::new(
                    RichText::new(
                        "No adapter found (install a Vulkan driver, e.g. Mesa's lavapipe).",
                    )
                    .color(Color32::from_rgb(220, 60, 60)),
                )
                .wrap(),
            );
        }
        if let Some(doc) = self.doc() {
            let a = &doc.adapter;
            ui.add(
                egui::Label::new(
                    RichText::new(format!(
                        "shown: {} ({}), observed SG {}",
                        a.name,
                        a.backend,
                        a.observed_subgroup_size
                            .map_or("?".to_owned(), |s| s.to_string())
                    ))
                    .weak(),
                )
                .wrap(),
            );
        }
    }

    fn run_controls(&mut self, ui: &mut egui::Ui) {
        ui.heading("Run");
        ui.horizontal(|ui| {
            ui.checkbox(&mut self.state.quick, "quick")
                .on_hover_text(start::RUN_COST);
            let label = ui.label("reps");
            ui.add(egui::DragValue::new(&mut self.state.reps).range(0..=1000))
                .labelled_by(label.id)
                .on_hover_text(
                    "Timed repetitions per configuration; 0 for the default (15, 5 with quick)",
                );
        });
        ui.horizontal(|ui| {
            let idle = self.worker.is_none();
            if ui
                .add_enabled(idle, egui::Button::new("Run all"))
                .on_hover_text(start::RUN_COST)
                .clicked()
            {
                let ids = registry().iter().map(|e| e.id().to_owned()).collect();
                self.start_run(ui.ctx(), ids);
            }
            self.cancel_button(ui);
        });
        if self.worker.is_some() {
            let p = &self.progress;
            let overall = if p.total == 0 {
                0.0
            } else {
                (p.index as f64 + p.fraction) / p.total as f64
            };
            // Not animated: an animation repaints every frame, and on a CPU device every frame
            // takes cycles from the experiment being timed.
            ui.add(egui::ProgressBar::new(overall as f32).text(format!(
                "[{}/{}] {}",
                p.index + 1,
                p.total.max(1),
                p.id
            )));
        }
    }

    fn experiment_tree(&mut self, ui: &mut egui::Ui) {
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
                        let info = e.info();
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
                                .on_hover_text(info.title)
                                .clicked()
                            {
                                self.state.selected = Some(e.id().to_owned());
                                // Compare shows the selection too; the Playground gives way
                                // to the experiment.
                                if self.state.tab == Tab::Playground {
                                    self.state.tab = Tab::Experiment;
                                }
                            }
                        });
                        // A truncated label shows its whole text on hover: one tooltip.
                        ui.add(
                            egui::Label::new(
                                RichText::new(format!("{} — {}", info.source, info.rule))
                                    .small()
                                    .weak(),
                            )
                            .truncate(),
                        );
                    }
                });
        }
    }
}
