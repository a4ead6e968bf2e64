//! The verdicts table: check, status (coloured) and detail.

use eframe::egui::{self, Color32, RichText};

use crate::report::{ExperimentResult, VerdictStatus};

/// Green for held/consistent, red for violated/inconsistent, grey for not_guaranteed, amber for
/// inconclusive.
pub fn status_colour(status: VerdictStatus) -> Color32 {
    match status {
        VerdictStatus::Held | VerdictStatus::Consistent => Color32::from_rgb(60, 170, 80),
        VerdictStatus::Violated | VerdictStatus::Inconsistent => Color32::from_rgb(220, 60, 60),
        VerdictStatus::NotGuaranteed => Color32::GRAY,
        VerdictStatus::Inconclusive => Color32::from_rgb(220, 160, 40),
    }
}

/// A status as a coloured label.
pub fn status_label(status: VerdictStatus) -> RichText {
    RichText::new(status.as_str())
        .color(status_colour(status))
        .strong()
}

/// One row per verdict of `result`.
pub fn verdicts_table(ui: &mut egui::Ui, result: &ExperimentResult) {
    if result.verdicts.is_empty() {
        ui.weak(match result.status_detail.as_str() {
            "" => "No verdicts.".to_owned(),
            detail => format!("No verdicts: {detail}"),
        });
        return;
    }
    // The rule is the experiment's, shown above the table; a column repeating it per row left
    // room for only its first word.
    egui::Grid::new(("verdicts", &result.id))
        .striped(true)
        .num_columns(3)
        .show(ui, |ui| {
            for heading in ["check", "status", "detail"] {
                ui.strong(heading);
            }
            ui.end_row();
            for v in &result.verdicts {
                // One line per check, so the detail keeps its room. A cut label shows its whole
                // text on hover by itself: one tooltip, not two.
                ui.scope(|ui| {
                    ui.set_width(300.0);
                    ui.add(egui::Label::new(&v.check).truncate());
                });
                ui.label(status_label(v.status));
                ui.add(egui::Label::new(&v.detail).wrap());
                ui.end_row();
            }
        });
}
