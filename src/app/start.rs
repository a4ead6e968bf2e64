//! What a first-time user sees: the start page (the adapter and its observed subgroup size, what
//! a run costs, where to begin).

use eframe::egui::{self, RichText};

use super::adapters::Adapters;
use super::worker::Background;
use crate::experiments::Lab;
use crate::gpu::{AdapterSelector, GpuContext};

/// What Run all costs: `divlab --bench --quick` and `divlab --bench` (wall time, release build)
/// on lavapipe (the idle 2-core CI machine) and on the H200, 2026-12-01.
pub const RUN_COST: &str = "Run all, quick: about 70 s on lavapipe (2 CPU cores), 15 s on an \
     H200. Without quick: about 3.7 min on lavapipe, 30 s on an H200. Quick runs 5 timed \
     repetitions instead of 15 and shorter sweeps: the same verdicts, with wider intervals.";

/// The start page's "where to begin" lines. Only glyphs egui's default fonts have (an arrow
/// such as U+2192 drew as a missing-glyph box): a test checks each line.
pub const WHERE_TO_BEGIN: [&str; 4] = [
    "• Pick an experiment on the left, then Run it: divergence.switch shows T(k) ≈ s·k and its \
     knee at the subgroup size.",
    "• Run all runs every experiment into a new document, autosaved after each one.",
    "• Open… a result file (yours, or assets/reference/*.json) to see another GPU, and Compare \
     to overlay several.",
    "• Playground: open or drop your own kernel (.wgsl), Run it, and see each line's lanes; \
     in Examples pick Image threshold, Run, then click a line inside the branch to see where \
     on the image its lanes sat idle.",
];

/// The subgroup probe of the selected adapter, run once on a thread of its own.
pub struct AdapterProbe {
    /// The adapter choice probed (`None`: divlab's default).
    pub adapter: Option<usize>,
    result: Background<Result<(String, u32), String>>,
    /// The adapter's name and observed subgroup size, once known.
    pub outcome: Option<Result<(String, u32), String>>,
}

impl AdapterProbe {
    fn start(adapter: Option<usize>) -> Self {
        let selector = AdapterSelector {
            backend: None,
            adapter: adapter.map(|i| i.to_string()),
        };
        let result = Background::spawn("divlab-probe", move |_, tx| {
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
            self.outcome = self.result.try_recv();
        }
    }
}

/// The start page, shown until an experiment is selected, and its probe.
#[derive(Default)]
pub struct StartPage {
    probe: Option<AdapterProbe>,
}

impl StartPage {
    /// The page for the picker's choice `adapter`.
    pub fn ui(&mut self, ui: &mut egui::Ui, adapter: Option<usize>, adapters: &Adapters) {
        ui.heading("divlab: what divergence costs on this GPU, and which lanes run together");
        ui.add_space(6.0);
        let label = adapters.label(adapter);
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
        for line in WHERE_TO_BEGIN {
            ui.add(egui::Label::new(line).wrap());
        }
    }
}
