//! The left panel: the adapter picker, the run controls, and every registered experiment grouped
//! by family (the id's prefix before `.`), each marked by its result in the shown document.

use eframe::egui::{self, Color32, RichText};

use super::adapters::Adapters;
use super::runner::Runner;
use super::{Command, State, Tab, start};
use crate::experiments::{Experiment, MIN_REPS, RunConfig, registry};
use crate::report::{ExperimentStatus, ResultDocument};

/// What the left panel reads besides the settings it changes.
pub struct LeftPanel<'a> {
    /// The picker's adapters.
    pub adapters: &'a Adapters,
    /// The document shown, whose results mark the tree.
    pub shown: Option<&'a ResultDocument>,
    /// The run in progress.
    pub runner: &'a Runner,
    /// Only the adapter (the Playground's panel).
    pub compact: bool,
}

impl LeftPanel<'_> {
    /// The panel; changes `state` (adapter, run settings, selection) in place.
    pub fn ui(&self, ui: &mut egui::Ui, state: &mut State) -> Option<Command> {
        self.adapter_picker(ui, state);
        ui.separator();
        if self.compact {
            ui.add(
                egui::Label::new(
                    RichText::new("The experiments and Run all are in the Experiment tab.").weak(),
                )
                .wrap(),
            );
            return None;
        }
        let command = self.run_controls(ui, state);
        ui.separator();
        self.experiment_tree(ui, state);
        command
    }

    fn adapter_picker(&self, ui: &mut egui::Ui, state: &mut State) {
        let heading = ui.heading("Adapter");
        let selected = self.adapters.label(state.adapter);
        egui::ComboBox::from_id_salt("adapter")
            .selected_text(selected)
            .width(ui.available_width())
            .truncate()
            .show_ui(ui, |ui| {
                let default = self.adapters.label(None);
                ui.selectable_value(&mut state.adapter, None, default);
                for a in self.adapters.choices() {
                    ui.selectable_value(&mut state.adapter, Some(a.index), &a.label);
                }
            })
            .response
            .labelled_by(heading.id);
        if self.adapters.choices().is_empty() {
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
        if let Some(doc) = self.shown {
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

    fn run_controls(&self, ui: &mut egui::Ui, state: &mut State) -> Option<Command> {
        ui.heading("Run");
        ui.horizontal(|ui| {
            ui.checkbox(&mut state.quick, "quick")
                .on_hover_text(start::RUN_COST);
            let label = ui.label("reps");
            let before = state.reps;
            // 0 stands for the default, which the field names rather than showing a bare 0.
            let default = RunConfig {
                quick: state.quick,
                ..RunConfig::default()
            }
            .reps();
            let field = ui
                .add(
                    egui::DragValue::new(&mut state.reps)
                        .range(0..=1000)
                        .custom_formatter(move |n, _| match n as usize {
                            0 => format!("default ({default})"),
                            n => n.to_string(),
                        })
                        .custom_parser(|text| match text.trim() {
                            t if t.starts_with("default") => Some(0.0),
                            t => t.parse().ok(),
                        }),
                )
                .labelled_by(label.id)
                .on_hover_text(
                    "Timed repetitions per configuration, at least 2; 0 for the default (15, 5 \
                 with quick)",
                );
            // One round has no interval: a typed 1 becomes 2, and a drag steps over 1, up to 2
            // or down to the default.
            if (1..MIN_REPS).contains(&state.reps) {
                let down = field.dragged() && before >= MIN_REPS;
                state.reps = if down { 0 } else { MIN_REPS };
            }
        });
        let command = ui
            .horizontal(|ui| {
                let run_all = ui
                    .add_enabled(!self.runner.running(), egui::Button::new("Run all"))
                    .on_hover_text(start::RUN_COST)
                    .clicked()
                    .then(|| Command::Run(registry().iter().map(|e| e.id().to_owned()).collect()));
                let cancel = self.runner.cancel_button(ui);
                run_all.or(cancel)
            })
            .inner;
        self.runner.progress_bar(ui);
        command
    }

    fn experiment_tree(&self, ui: &mut egui::Ui, state: &mut State) {
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
                        self.experiment_row(ui, state, e.as_ref());
                    }
                });
        }
    }

    /// One experiment: its mark, its id (a click selects it), and its rule.
    fn experiment_row(&self, ui: &mut egui::Ui, state: &mut State, e: &dyn Experiment) {
        let info = e.info();
        let result = self
            .shown
            .and_then(|d| d.experiments.iter().find(|r| r.id == e.id()));
        // A dot: none (not run), grey (unsupported/error), red (a violation), green (ran).
        // Painted, so no font needs the glyph.
        let mark = match result {
            None => None,
            Some(r) if r.status != ExperimentStatus::Ok => Some(Color32::GRAY),
            Some(r) if r.has_violation() => Some(Color32::from_rgb(220, 60, 60)),
            Some(_) => Some(Color32::from_rgb(60, 170, 80)),
        };
        ui.horizontal(|ui| {
            let (dot, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
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
            let is_selected = state.selected.as_deref() == Some(e.id());
            if ui
                .selectable_label(is_selected, e.id())
                .on_hover_text(info.title)
                .clicked()
            {
                state.selected = Some(e.id().to_owned());
                // Compare shows the selection too; the Playground gives way to the experiment.
                if state.tab == Tab::Playground {
                    state.tab = Tab::Experiment;
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
}
