//! WGSL with each line coloured by its static uniformity verdict from [`crate::uniformity`],
//! and the analysis' diagnostics at their line and column.

use eframe::egui::{self, Color32, RichText};

use crate::uniformity::{Analysis, Severity, Verdict};

/// Every kernel source, by file stem (`shaders/<stem>.wgsl`).
pub const SHADERS: &[(&str, &str)] = &[
    (
        "convergence",
        include_str!("../../shaders/convergence.wgsl"),
    ),
    ("divergence", include_str!("../../shaders/divergence.wgsl")),
    ("fma_chain", include_str!("../../shaders/fma_chain.wgsl")),
    (
        "scheduling_forward_progress",
        include_str!("../../shaders/scheduling_forward_progress.wgsl"),
    ),
    (
        "scheduling_handshake",
        include_str!("../../shaders/scheduling_handshake.wgsl"),
    ),
    (
        "scheduling_interleaving",
        include_str!("../../shaders/scheduling_interleaving.wgsl"),
    ),
    (
        "scheduling_lockstep_race",
        include_str!("../../shaders/scheduling_lockstep_race.wgsl"),
    ),
    (
        "scheduling_run_ahead",
        include_str!("../../shaders/scheduling_run_ahead.wgsl"),
    ),
    (
        "subgroup_ops",
        include_str!("../../shaders/subgroup_ops.wgsl"),
    ),
    (
        "subgroup_size",
        include_str!("../../shaders/subgroup_size.wgsl"),
    ),
];

/// The kernel of an experiment, by the one-name-per-kernel convention: the longest shader stem
/// that the id (with `.` as `_`) starts with, else the stem equal to the id's family.
pub fn shader_for(id: &str) -> Option<(&'static str, &'static str)> {
    let flat = id.replace('.', "_");
    let family = id.split('.').next().unwrap_or(id);
    SHADERS
        .iter()
        .filter(|(stem, _)| flat.starts_with(stem))
        .max_by_key(|(stem, _)| stem.len())
        .or_else(|| SHADERS.iter().find(|(stem, _)| *stem == family))
        .copied()
}

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

/// The source, numbered, each line tinted by its verdict; hovering a line says why. Diagnostics
/// are listed first with their `line:column`.
pub fn source_view(
    ui: &mut egui::Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    source: &str,
    analysis: &Analysis,
) {
    diagnostics(ui, analysis);
    legend(ui);
    let text_height = ui.text_style_height(&egui::TextStyle::Monospace);
    let lines: Vec<&str> = source.lines().collect();
    egui::ScrollArea::both()
        .id_salt(id)
        .auto_shrink([false, true])
        .max_height(ui.available_height().max(200.0))
        .show_rows(ui, text_height, lines.len(), |ui, range| {
            for index in range {
                let n = index as u32 + 1;
                let verdict = analysis.line(n);
                let mut text = RichText::new(format!("{n:>4}  {}", lines[index])).monospace();
                if let Some(v) = verdict {
                    text = text.background_color(verdict_colour(v.verdict));
                }
                if analysis.diagnostics.iter().any(|d| d.line == n) {
                    text = text.underline();
                }
                let response = ui.add(egui::Label::new(text).extend());
                if let Some(reason) = verdict.and_then(|v| v.reason.as_deref()) {
                    response.on_hover_text(reason);
                }
            }
        });
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A new kernel shows up in the app only if it is listed here: every `shaders/*.wgsl` is, and
    /// each scheduling probe finds its own kernel.
    #[test]
    fn every_shader_file_is_listed() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/shaders");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .expect("shaders/")
            .filter_map(|e| {
                let name = e.expect("entry").file_name().to_string_lossy().into_owned();
                name.strip_suffix(".wgsl").map(str::to_owned)
            })
            .collect();
        on_disk.sort();
        let listed: Vec<&str> = SHADERS.iter().map(|(stem, _)| *stem).collect();
        assert_eq!(on_disk, listed);
        for id in crate::experiments::scheduling::all().iter().map(|e| e.id()) {
            let stem = shader_for(id).map(|(stem, _)| stem);
            assert_eq!(stem, Some(id.replace('.', "_").as_str()), "{id}");
        }
    }
}
