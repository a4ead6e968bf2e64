//! WGSL with each line coloured by its static uniformity verdict from [`crate::uniformity`],
//! and the analysis' diagnostics at their line and column.

use eframe::egui::{self, Color32, RichText};

use crate::uniformity::{Analysis, Severity, Verdict};

/// Background tint of a line verdict.
pub fn verdict_colour(verdict: Verdict) -> Color32 {
    match verdict {
        Verdict::Uniform => Color32::from_rgba_unmultiplied(60, 170, 80, 40),
        Verdict::NonUniform => Color32::from_rgba_unmultiplied(230, 150, 30, 60),
        Verdict::NotExecuted => Color32::from_rgba_unmultiplied(128, 128, 128, 40),
    }
}

fn severity_colour(severity: Severity) -> Color32 {
    match severity {
        Severity::Error => Color32::from_rgb(220, 60, 60),
        Severity::Warning => Color32::from_rgb(230, 150, 30),
        Severity::Info => Color32::GRAY,
    }
}

/// A legend of the line colours.
pub fn legend(ui: &mut egui::Ui) {
    ui.horizontal(|ui| {
        for (verdict, name) in [
            (Verdict::Uniform, "uniform"),
            (Verdict::NonUniform, "non-uniform"),
            (Verdict::NotExecuted, "not executed"),
        ] {
            ui.label(
                RichText::new(format!(" {name} "))
                    .background_color(verdict_colour(verdict))
                    .monospace(),
            );
        }
    });
}

/// A line to show: outlined, and scrolled into view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Focus {
    /// The 1-based line.
    pub line: u32,
    /// For how many more frames to scroll to it: the pane may still be opening (animated), so
    /// one request may aim at where the line is not yet.
    pub scroll: u8,
}

/// The source, numbered, each line tinted by its verdict; hovering a line says why. Diagnostics
/// are listed first with their `line:column`. A `focus` line is outlined (and scrolled to once).
pub fn source_view(
    ui: &mut egui::Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    source: &str,
    analysis: &Analysis,
    focus: Option<&mut Focus>,
) {
    let mut focus = focus;
    let mut focused = None;
    diagnostics(ui, analysis);
    legend(ui);
    // As tall as the source: the page around it scrolls, and every line has its number.
    egui::ScrollArea::horizontal()
        .id_salt(id)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            for (index, line) in source.lines().enumerate() {
                let n = index as u32 + 1;
                let verdict = analysis.line(n);
                let mut text = RichText::new(format!("{n:>4}  {line}")).monospace();
                if let Some(v) = verdict {
                    text = text.background_color(verdict_colour(v.verdict));
                }
                if analysis.diagnostics.iter().any(|d| d.line == n) {
                    text = text.underline();
                }
                let response = ui.add(egui::Label::new(text).extend());
                if let Some(f) = focus.as_deref_mut()
                    && f.line == n
                {
                    ui.painter().rect_stroke(
                        response.rect.expand(1.0),
                        2.0,
                        egui::Stroke::new(1.5, ui.visuals().strong_text_color()),
                        egui::StrokeKind::Outside,
                    );
                    if f.scroll > 0 {
                        f.scroll -= 1;
                        focused = Some(response.rect);
                    }
                }
                if let Some(reason) = verdict.and_then(|v| v.reason.as_deref()) {
                    response.on_hover_text(reason);
                }
            }
        });
    // Here, not inside the horizontal scroll area, which would take the vertical target too.
    if let Some(rect) = focused {
        ui.scroll_to_rect(rect, Some(egui::Align::Center));
        ui.ctx().request_repaint();
    }
}

/// The analysis' diagnostics, coloured by severity.
pub fn diagnostics(ui: &mut egui::Ui, analysis: &Analysis) {
    for d in &analysis.diagnostics {
        ui.label(
            RichText::new(format!(
                "{}:{}:{}: {:?}: {} ({})",
                analysis.file, d.line, d.column, d.severity, d.message, d.reason
            ))
            .color(severity_colour(d.severity)),
        );
    }
}
