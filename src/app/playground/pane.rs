//! The pane beside the Playground's editor: the compile error at its line, the static verdicts,
//! or the last run's profile painted onto the source. An edit that changes only comments keeps
//! the profile in view, marked stale: the code that ran is the code shown.

use eframe::egui::{self, Color32, RichText};

use super::{Outcome, Playground};
use crate::app::profile_view::{self, PaneAction, PaneParts};
use crate::app::source_view::source_view;
use crate::shaders::mask_comments;
use crate::uniformity::Analysis;

/// `source` without its comments (`//` to the end of the line, and `/* */`, which nest in
/// WGSL) and with each run of blanks as one space, line by line: two sources with the same code
/// read the same. A `//` or `/*` inside a string cannot occur: WGSL has no strings.
pub fn code_only(source: &str) -> Vec<String> {
    let code = mask_comments(source);
    let words = |line: &str| line.split_whitespace().collect::<Vec<_>>().join(" ");
    code.lines().map(words).collect()
}

/// Whether `edited` differs from `ran` in comments and blank space only, so the profile of
/// `ran` is the profile of `edited`'s code; `Some(true)` where the lines also still match one
/// for one (the profile can be painted onto the edited text).
pub fn comment_only_edit(ran: &str, edited: &str) -> Option<bool> {
    let (a, b) = (code_only(ran), code_only(edited));
    if a == b {
        return Some(true);
    }
    // `code_only`'s lines are trimmed already: only the blank ones go.
    let (a, b) = (a.iter(), b.iter());
    (a.filter(|l| !l.is_empty()))
        .eq(b.filter(|l| !l.is_empty()))
        .then_some(false)
}

impl Playground {
    /// The pane beside the editor; returns what the user asked of it.
    pub(super) fn result_pane(&mut self, ui: &mut egui::Ui) -> Option<PaneAction> {
        let analysis = match &self.outcome {
            Outcome::None => return None,
            Outcome::Invalid {
                line,
                column,
                message,
            } => {
                ui.add(
                    egui::Label::new(
                        RichText::new(format!(
                            "{}:{line}:{column}: compile error",
                            self.file_name()
                        ))
                        .color(Color32::from_rgb(220, 60, 60))
                        .strong(),
                    )
                    .wrap(),
                );
                if let Some(text) = self.source.lines().nth((*line as usize).saturating_sub(1)) {
                    marked_line(ui, *line, text);
                }
                ui.add(egui::Label::new(RichText::new(message).monospace()).wrap());
                return None;
            }
            Outcome::Analysed(analysis) => analysis,
        };
        // The run's profile stays in view after an edit of comments only, painted onto the
        // text as it is now where its lines still match, else onto the text that ran.
        let shown = self.last.as_ref().and_then(|last| {
            if last.source == self.source {
                return Some((last, &self.source, false));
            }
            let same_lines = comment_only_edit(&last.source, &self.source)?;
            let source = if same_lines {
                &self.source
            } else {
                &last.source
            };
            Some((last, source, true))
        });
        match shown.map(|(last, source, stale)| (&last.outcome, source, stale)) {
            Some((Ok(finished), source, stale)) => {
                // The analysis is of the text now: it fits where the profile is painted on it.
                let fits = std::ptr::eq(source, &self.source);
                if stale {
                    ui.add(
                        egui::Label::new(
                            RichText::new(
                                "Stale: comments changed since this run; its code, and so its \
                                 figures, are the same. Run again to refresh.",
                            )
                            .color(Color32::from_rgb(220, 160, 40)),
                        )
                        .wrap(),
                    );
                }
                let pane = profile_view::ProfilePane {
                    source,
                    finished,
                    analysis: fits.then_some(&**analysis),
                };
                let parts = PaneParts {
                    view: &mut self.view,
                    jump: &mut self.jump,
                    lanes: self.lane_map.as_mut(),
                    dispatch_map: self.dispatch_map.as_mut(),
                    pictures: &mut self.pictures,
                    pinned: self.pinned.as_deref(),
                };
                return pane.ui(ui, parts);
            }
            Some((Err(error), _, _)) => {
                ui.add(
                    egui::Label::new(
                        RichText::new(&error.message).color(Color32::from_rgb(220, 60, 60)),
                    )
                    .wrap(),
                );
                if error.line > 0
                    && let Some(text) = self.source.lines().nth(error.line as usize - 1)
                {
                    marked_line(ui, error.line, text);
                }
                static_view(ui, &self.source, analysis);
            }
            None => {
                ui.strong(crate::uniformity::summary(analysis));
                for added in analysis.added_returns() {
                    ui.add(
                        egui::Label::new(
                            RichText::new(format!("line {}: {}", added.line, added.describe()))
                                .color(Color32::from_rgb(220, 160, 40)),
                        )
                        .wrap(),
                    );
                }
                if self.last.is_some() {
                    ui.weak("Edited since the last run: Run again to profile this version.");
                } else {
                    ui.weak("Run (Ctrl+Enter) profiles it: executions and active lanes per line.");
                }
                static_view(ui, &self.source, analysis);
            }
        }
        None
    }
}

/// Line `n` of the source, `text`, marked as where an error is.
fn marked_line(ui: &mut egui::Ui, n: u32, text: &str) {
    ui.label(
        RichText::new(format!("{n:>4}  {text}"))
            .monospace()
            .background_color(Color32::from_rgba_unmultiplied(220, 60, 60, 60)),
    );
}

/// The source with its static verdicts, scrolled within the pane.
fn static_view(ui: &mut egui::Ui, source: &str, analysis: &Analysis) {
    egui::ScrollArea::vertical()
        .id_salt("playground_static")
        .auto_shrink([false, true])
        .show(ui, |ui| {
            source_view(ui, "playground_source", source, analysis, None)
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    const RAN: &str = "fn f() {\n    // one\n    let x = 1u; /* a */\n}\n";

    #[test]
    fn a_comment_edit_is_told_from_a_code_edit() {
        let reworded = "fn f() {\n    // two words\n    let x = 1u; /* b /* nested */ */\n}\n";
        assert_eq!(comment_only_edit(RAN, reworded), Some(true));
        let added = "// header\nfn f() {\n    // one\n    let x = 1u;\n}\n";
        assert_eq!(comment_only_edit(RAN, added), Some(false));
        let code = "fn f() {\n    // one\n    let x = 2u;\n}\n";
        assert_eq!(comment_only_edit(RAN, code), None);
        // Commenting code out is a code edit.
        let commented = "fn f() {\n    // one\n    // let x = 1u;\n}\n";
        assert_eq!(comment_only_edit(RAN, commented), None);
    }
}
