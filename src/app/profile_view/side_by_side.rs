//! Two profiles line by line: a pinned one and this run, each line's executions and efficiency
//! in both, with each one's own source text. Lines pair by number.

use std::collections::{BTreeMap, BTreeSet};

use eframe::egui::{self, Color32, RichText};

use super::gutter::efficiency_colour;
use crate::profile::report::Profile;

/// What a profile goes by in the side-by-side view: `file on adapter`.
pub fn profile_name(profile: &Profile) -> String {
    format!("{} on {}", profile.kernel.file, profile.adapter.name)
}

/// A line's executions and efficiency in one profile.
type Figures = (u64, Option<f64>);

/// One line of both profiles.
#[derive(Debug, PartialEq)]
struct Pair {
    /// The 1-based line number.
    n: u32,
    /// Its figures in the pinned profile, where it counted the line.
    a: Option<Figures>,
    /// Its text in the pinned profile's source, trimmed.
    a_text: String,
    /// Its figures in this run.
    b: Option<Figures>,
    /// Its text in this run's source.
    b_text: String,
}

/// Every line either profile counted, in order, with both profiles' figures and texts.
fn pairs(a: &Profile, b: &Profile) -> Vec<Pair> {
    let figures = |p: &Profile| -> BTreeMap<u32, Figures> {
        p.lines
            .iter()
            .map(|l| (l.line, (l.executions, l.efficiency)))
            .collect()
    };
    let (fa, fb) = (figures(a), figures(b));
    let text = |p: &Profile, n: u32| {
        p.source
            .as_deref()
            .and_then(|s| s.lines().nth(n as usize - 1))
            .unwrap_or("")
            .trim()
            .to_owned()
    };
    let lines: BTreeSet<u32> = fa.keys().chain(fb.keys()).copied().collect();
    lines
        .into_iter()
        .map(|n| Pair {
            n,
            a: fa.get(&n).copied(),
            a_text: text(a, n),
            b: fb.get(&n).copied(),
            b_text: text(b, n),
        })
        .collect()
}

/// A profile's control-flow efficiency, as the heading gives it.
fn headline(p: &Profile) -> String {
    p.control_flow_efficiency
        .map_or_else(|| "—".to_owned(), |e| format!("{:.1}%", e * 100.0))
}

/// The executions and efficiency cells of one profile's line.
fn cell(ui: &mut egui::Ui, figures: Option<Figures>) {
    match figures {
        Some((executions, efficiency)) => {
            ui.monospace(executions.to_string());
            match efficiency {
                Some(e) => ui.label(
                    RichText::new(format!("{:.0}%", e * 100.0))
                        .monospace()
                        .color(Color32::BLACK)
                        .background_color(efficiency_colour(e)),
                ),
                None => ui.label(""),
            };
        }
        None => {
            ui.label("");
            ui.label("");
        }
    }
}

/// Two profiles line by line: each line's executions and efficiency in `a` and in `b`, with
/// each one's own source text (lines pair by number).
pub fn side_by_side(ui: &mut egui::Ui, a: &Profile, b: &Profile) {
    let name = profile_name(a);
    ui.strong(format!("Side by side: {name} (pinned) | this run"));
    ui.label(format!(
        "control-flow efficiency: {} (pinned), {} (this run)",
        headline(a),
        headline(b)
    ));
    let pairs = pairs(a, b);
    egui::ScrollArea::both()
        .id_salt("side_by_side_scroll")
        .auto_shrink([false, true])
        .show(ui, |ui| {
            egui::Grid::new("side_by_side_grid")
                .striped(true)
                .num_columns(7)
                .show(ui, |ui| {
                    ui.strong("line");
                    ui.strong("executions").on_hover_text(&name);
                    ui.strong("efficiency").on_hover_text(&name);
                    ui.strong("pinned");
                    ui.strong("executions").on_hover_text("this run");
                    ui.strong("efficiency").on_hover_text("this run");
                    ui.strong("this run");
                    ui.end_row();
                    for pair in &pairs {
                        ui.monospace(pair.n.to_string());
                        cell(ui, pair.a);
                        ui.monospace(&pair.a_text);
                        cell(ui, pair.b);
                        ui.monospace(&pair.b_text);
                        ui.end_row();
                    }
                });
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::profile_view::fixture;

    #[test]
    fn lines_pair_by_number_with_each_profiles_own_figures_and_text() {
        let a = fixture::profile();
        let mut b = fixture::profile();
        // This run: line 5 gone, a new line 12 after an edit; line 4 now never diverges.
        b.lines.retain(|l| l.line != 5);
        let mut twelve = b.lines[0].clone();
        twelve.line = 12;
        b.lines.push(twelve);
        b.lines[1].efficiency = Some(1.0);
        b.source = Some(format!("{}    x += 2u;\n", fixture::SOURCE));
        let pairs = pairs(&a, &b);
        let lines: Vec<u32> = pairs.iter().map(|p| p.n).collect();
        assert_eq!(lines, [3, 4, 5, 7, 8, 10, 12]);
        let five = &pairs[2];
        assert_eq!(five.a, Some((4, Some(0.5))));
        assert_eq!(five.b, None);
        assert_eq!(
            (five.a_text.as_str(), five.b_text.as_str()),
            ("x = 1u;", "x = 1u;")
        );
        let twelve = &pairs[6];
        assert_eq!((twelve.a, twelve.b), (None, Some((4, Some(0.75)))));
        assert_eq!(
            (twelve.a_text.as_str(), twelve.b_text.as_str()),
            ("", "x += 2u;")
        );
        assert_eq!(pairs[1].b, Some((4, Some(1.0))));
    }

    #[test]
    fn a_profile_without_its_source_pairs_with_empty_text() {
        let mut a = fixture::profile();
        a.source = None;
        let pairs = pairs(&a, &fixture::profile());
        assert_eq!(pairs[0].a_text, "");
        assert_eq!(pairs[0].b_text, "var x = 0u;");
    }

    #[test]
    fn a_profile_goes_by_its_file_and_adapter_and_its_efficiency() {
        let mut profile = fixture::profile();
        assert_eq!(profile_name(&profile), "k.wgsl on llvmpipe");
        assert_eq!(headline(&profile), "80.0%");
        profile.control_flow_efficiency = None;
        assert_eq!(headline(&profile), "—");
    }
}
