//! The playground: edit or open a WGSL compute shader, see naga's compile error at its line,
//! and the static uniformity verdict of every line.

use eframe::egui::{self, Color32, RichText};

use super::source_view::source_view;
use crate::uniformity::{Analysis, analyze_source};

/// The shader the playground starts with: valid WGSL that shows both verdicts, a ballot every
/// lane reaches and one only the odd lanes reach.
pub const EXAMPLE: &str = "enable subgroups;
// WGSL rejects a subgroup op under a lane-dependent branch
// unless this rule is off; divlab's experiments turn it off
// to watch which lanes run such a line together.
diagnostic(off, subgroup_uniformity);

@group(0) @binding(0) var<storage, read_write> out: array<vec4<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) sid: u32) {
    // Uniform: every lane of the subgroup reaches this ballot.
    let everyone = subgroupBallot(true);
    var odd = vec4<u32>(0u);
    if (sid % 2u == 1u) {
        // Non-uniform: only the odd lanes run this line.
        odd = subgroupBallot(true);
    }
    out[lid] = everyone ^ odd;
}
";

/// The editor's text and the result of its last check.
pub struct Playground {
    /// The WGSL being edited.
    pub source: String,
    checked: Option<String>,
    outcome: Outcome,
}

/// What a check found.
pub enum Outcome {
    /// Not checked yet.
    None,
    /// It does not compile: where and why.
    Invalid {
        line: u32,
        column: u32,
        message: String,
    },
    /// It compiles; the static analysis.
    Analysed(Box<Analysis>),
}

impl Playground {
    /// A playground holding `source`.
    pub fn new(source: String) -> Self {
        Self {
            source,
            checked: None,
            outcome: Outcome::None,
        }
    }

    /// The last check's outcome.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// Checks the source with naga (located errors), then analyses its uniformity.
    pub fn check(&mut self) {
        self.outcome = match crate::gpu::check_wgsl("playground.wgsl", &self.source)
            .and_then(|_| analyze_source("playground.wgsl", &self.source))
        {
            Ok(analysis) => Outcome::Analysed(Box::new(analysis)),
            Err(crate::Error::InvalidWgsl {
                line,
                column,
                message,
                ..
            }) => Outcome::Invalid {
                line,
                column,
                message,
            },
            Err(e) => Outcome::Invalid {
                line: 0,
                column: 0,
                message: e.to_string(),
            },
        };
        self.checked = Some(self.source.clone());
    }

    /// The view: the editor beside the verdicts; the source is re-checked when it changes.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        if self.checked.as_deref() != Some(self.source.as_str()) {
            self.check();
        }
        ui.columns(2, |columns| {
            let label = columns[0].strong("WGSL (edit here; checked as you type)");
            egui::ScrollArea::vertical()
                .id_salt("playground_editor")
                .show(&mut columns[0], |ui| {
                    ui.add(
                        egui::TextEdit::multiline(&mut self.source)
                            .code_editor()
                            .desired_width(f32::INFINITY)
                            .desired_rows(24),
                    )
                    .labelled_by(label.id);
                });
            let ui = &mut columns[1];
            match &self.outcome {
                Outcome::None => {}
                Outcome::Invalid {
                    line,
                    column,
                    message,
                } => {
                    ui.label(
                        RichText::new(format!("playground.wgsl:{line}:{column}: compile error"))
                            .color(Color32::from_rgb(220, 60, 60))
                            .strong(),
                    );
                    if let Some(text) = self.source.lines().nth((*line as usize).saturating_sub(1))
                    {
                        ui.label(
                            RichText::new(format!("{line:>4}  {text}"))
                                .monospace()
                                .background_color(Color32::from_rgba_unmultiplied(220, 60, 60, 60)),
                        );
                    }
                    ui.label(RichText::new(message).monospace());
                }
                Outcome::Analysed(analysis) => {
                    ui.strong(crate::uniformity::summary(analysis));
                    source_view(ui, "playground_source", &self.source, analysis);
                }
            }
        });
    }
}
