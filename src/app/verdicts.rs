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

/// The kernel lines a text names ("line 68"), in order, without repeats.
pub fn named_lines(text: &str) -> Vec<u32> {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("line ") {
        rest = &rest[at + "line ".len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = digits.parse::<u32>()
            && !lines.contains(&n)
        {
            lines.push(n);
        }
    }
    lines
}

/// The width of the check column: its text wraps at it.
pub const CHECK_WIDTH: f32 = 280.0;

/// One row per verdict of `result`; a detail that names kernel lines links to them. Returns the
/// line clicked.
pub fn verdicts_table(ui: &mut egui::Ui, result: &ExperimentResult) -> Option<u32> {
    if result.verdicts.is_empty() {
        ui.weak(match result.status_detail.as_str() {
            "" => "No verdicts.".to_owned(),
            detail => format!("No verdicts: {detail}"),
        });
        return None;
    }
    let mut clicked = None;
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
                // The whole check, wrapped in its column (cut to one line, it lost its ending:
                // what was checked).
                ui.scope(|ui| {
                    ui.set_width(CHECK_WIDTH);
                    ui.add(egui::Label::new(&v.check).wrap());
                });
                ui.label(status_label(v.status));
                ui.vertical(|ui| {
                    ui.add(egui::Label::new(&v.detail).wrap());
                    let lines = named_lines(&v.detail);
                    if !lines.is_empty() {
                        ui.horizontal_wrapped(|ui| {
                            ui.weak("kernel:");
                            for line in lines {
                                if ui
                                    .link(format!("line {line}"))
                                    .on_hover_text("Show this line of the kernel")
                                    .clicked()
                                {
                                    clicked = Some(line);
                                }
                            }
                        });
                    }
                });
                ui.end_row();
            }
        });
    clicked
}

#[cfg(test)]
mod tests {
    #[test]
    fn lines_named_in_a_detail_are_found_once_each() {
        let detail = "ran as one set; line 68: together; line 69 and line 68 again; lines";
        assert_eq!(super::named_lines(detail), [68, 69]);
        assert!(super::named_lines("no line here").is_empty());
    }
}
