//! What a first-time user sees: the start page (the adapter and its observed subgroup size, what
//! a run costs, where to begin), the document switcher, and the run controls' hints.

use std::sync::mpsc::{Receiver, channel};

use eframe::egui::{self, RichText};

use super::DivlabApp;
use crate::experiments::Lab;
use crate::gpu::{AdapterSelector, GpuContext};

/// What Run all costs: `divlab --bench --quick` and `divlab --bench` (wall time, release build)
/// on lavapipe (the idle 2-core CI machine) and on the H200, 2026-12-01.
pub const RUN_COST: &str = "Run all, quick: about 70 s on lavapipe (2 CPU cores), 15 s on an \
     H200. Without quick: about 3.7 min on lavapipe, 30 s on an H200. Quick runs 5 timed \
     repetitions instead of 15 and shorter sweeps: the same verdicts, with wider intervals.";

/// The subgroup probe of the selected adapter, run once on a thread of its own.
pub struct AdapterProbe {
    /// The adapter choice probed (`None`: divlab's default).
    pub adapter: Option<usize>,
    result: Receiver<Result<(String, u32), String>>,
    /// The adapter's name and observed subgroup size, once known.
    pub outcome: Option<Result<(String, u32), String>>,
}

impl AdapterProbe {
    fn start(adapter: Option<usize>) -> Self {
        let (tx, result) = channel();
        let selector = AdapterSelector {
            backend: None,
            adapter: adapter.map(|i| i.to_string()),
        };
        std::thread::spawn(move || {
            let outcome = GpuContext::new(&selector)
                .map_err(|e| e.to_string())
                .and_then(|gpu| {
                    let name = gpu.info.name.clone();
                    let lab = Lab::new(gpu);
                    let size = lab.subgroup().map_err(|e| e.to_string())?.size;
                    Ok((name, size))
                });
            let _ = tx.send(outcome);
        });
        Self {
            adapter,
            result,
            outcome: None,
        }
    }

    fn poll(&mut self) {
        if self.outcome.is_none() {
            self.outcome = self.result.try_recv().ok();
        }
    }
}

impl DivlabApp {
    /// The start page, shown until an experiment is selected.
    pub(super) fn start_page(&mut self, ui: &mut egui::Ui) {
        ui.heading("divlab: what divergence costs on this GPU, and which lanes run together");
        ui.add_space(6.0);
        let adapter = self.state.adapter;
        let label = self.adapter_label(adapter);
        let probe = self
            .probe
            .get_or_insert_with(|| AdapterProbe::start(adapter));
        if probe.adapter != adapter {
            *probe = AdapterProbe::start(adapter);
        }
        probe.poll();
        match &probe.outcome {
            None => {
                ui.label(format!("Adapter: {label}"));
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.weak("probing its subgroup size…");
                });
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(250));
            }
            Some(Ok((name, size))) => {
                ui.label(format!("Adapter: {label}"));
                ui.label(
                    RichText::new(format!(
                        "{name} runs subgroups of {size} lanes (observed with a ballot just now)."
                    ))
                    .strong(),
                );
            }
            Some(Err(e)) => {
                ui.label(format!("Adapter: {label}"));
                ui.add(
                    egui::Label::new(
                        RichText::new(format!("Cannot use this adapter: {e}"))
                            .color(egui::Color32::from_rgb(220, 60, 60)),
                    )
                    .wrap(),
                );
            }
        }
        ui.add_space(8.0);
        ui.add(egui::Label::new(RUN_COST).wrap());
        ui.add_space(8.0);
        ui.strong("Where to begin");
        for line in [
            "• Pick an experiment on the left, then Run it: divergence.switch shows T(k) ≈ s·k \
             and its knee at the subgroup size.",
            "• Run all runs every experiment into a new document, autosaved after each one.",
            "• Open… a result file (yours, or assets/reference/*.json) to see another GPU, and \
             Compare to overlay several.",
            "• Playground: edit a WGSL kernel and see which lines are uniform.",
        ] {
            ui.add(egui::Label::new(line).wrap());
        }
    }

    /// The adapter the picker's choice names, as a label.
    pub(super) fn adapter_label(&self, choice: Option<usize>) -> String {
        let entry = match choice {
            None => self.adapters.iter().find(|a| a.is_default),
            Some(i) => self.adapters.iter().find(|a| a.index == i),
        };
        match (choice, entry) {
            (None, Some(a)) => format!("default: {}", a.label),
            (None, None) => "default".to_owned(),
            (Some(_), Some(a)) => a.label.clone(),
            (Some(i), None) => format!("#{i}"),
        }
    }

    /// Which document the Experiment view shows, when there is more than one.
    pub(super) fn document_switcher(&mut self, ui: &mut egui::Ui) {
        if self.documents.len() < 2 {
            return;
        }
        let mut current = self.current;
        ui.horizontal(|ui| {
            let label = ui.label("Document:");
            egui::ComboBox::from_id_salt("document")
                .selected_text(&self.documents[current].label)
                .show_ui(ui, |ui| {
                    for (index, d) in self.documents.iter().enumerate() {
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
        self.show_document(current);
    }

    /// Cancel, for the run in progress.
    pub(super) fn cancel_button(&self, ui: &mut egui::Ui) {
        if let Some(worker) = &self.worker
            && ui
                .add_enabled(!worker.cancelling(), egui::Button::new("Cancel"))
                .on_hover_text(
                    "Stops within one GPU submission; the experiment is recorded as cancelled",
                )
                .clicked()
        {
            worker.cancel();
        }
    }

    /// What Run costs, for hover text (per-experiment `wall_s` of the runs behind
    /// [`RUN_COST`]).
    pub(super) fn run_cost_hint(&self) -> &'static str {
        if self.state.quick {
            "Runs this experiment on the worker (quick). Most experiments take under a second; \
             the four divergence forms 10-14 s each on lavapipe, 3 s on an H200"
        } else {
            "Runs this experiment on the worker. Most experiments take under a second; the four \
             divergence forms 40-60 s each on lavapipe, 6-9 s on an H200"
        }
    }
}
