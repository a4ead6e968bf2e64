//! Two profiles line by line: a pinned one and this run, in two panes of equal width, each line
//! of one beside the same line of the other. Lines pair by their text (a longest common
//! subsequence of the trimmed lines), so an edit that adds or removes lines keeps the rest
//! aligned; for the same source that is pairing by number. Two profiles of different kernels
//! still show, under a heading that says so plainly.

use std::collections::BTreeMap;

use eframe::egui::{self, Color32, RichText, Sense, accesskit::Role, vec2};

use super::gutter::efficiency_colour;
use crate::profile::report::Profile;

/// What a profile goes by in the side-by-side view: `file on adapter`.
pub fn profile_name(profile: &Profile) -> String {
    format!("{} on {}", profile.kernel.file, profile.adapter.name)
}

/// How two profiles' kernels relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// The same source text (the same kernel, run again or elsewhere).
    Same,
    /// The same file, edited: at least half the longer source's lines are in both.
    Edited,
    /// Different kernels: lines still pair by text, but few do.
    Different,
}

/// How the pinned profile's kernel relates to `source`, the kernel of file `file` now.
pub fn relation(pinned: &Profile, file: &str, source: &str) -> Relation {
    let Some(pinned_source) = pinned.source.as_deref() else {
        return if pinned.kernel.file == file {
            Relation::Edited
        } else {
            Relation::Different
        };
    };
    if pinned_source == source {
        return Relation::Same;
    }
    // Only lines that say something count: braces and blank lines are in every kernel.
    let telling = |l: &str| l.len() >= 4 && !l.starts_with("//");
    let (a, b) = (trimmed(pinned_source), trimmed(source));
    let common = align(&a, &b)
        .iter()
        .filter(|(i, j)| j.is_some() && i.is_some_and(|i| telling(a[i])))
        .count();
    let count = |lines: &[&str]| lines.iter().filter(|l| telling(l)).count();
    // Half the longer: two kernels share their boilerplate (bindings, the entry's signature,
    // a bounds check), which can be half of a short one.
    let longer = count(&a).max(count(&b)).max(1);
    if pinned.kernel.file == file && 2 * common >= longer {
        Relation::Edited
    } else {
        Relation::Different
    }
}

/// A source's lines, trimmed, as alignment compares them.
fn trimmed(source: &str) -> Vec<&str> {
    source.lines().map(str::trim).collect()
}

/// The longest common subsequence of `a` and `b` as a list of rows: both lines' 0-based
/// indices where they pair, one side's where the other has no line there. Past 4,000 lines
/// either side (16 million cells) lines pair by number instead.
fn align(a: &[&str], b: &[&str]) -> Vec<(Option<usize>, Option<usize>)> {
    let (n, m) = (a.len(), b.len());
    if n * m > 16_000_000 {
        return (0..n.max(m))
            .map(|i| ((i < n).then_some(i), (i < m).then_some(i)))
            .collect();
    }
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if a[i] == b[j] {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j, mut rows) = (0, 0, Vec::with_capacity(n.max(m)));
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            rows.push((Some(i), Some(j)));
            (i, j) = (i + 1, j + 1);
        } else if j == m || (i < n && lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) {
            rows.push((Some(i), None));
            i += 1;
        } else {
            rows.push((None, Some(j)));
            j += 1;
        }
    }
    rows
}

/// A line's executions and efficiency in one profile.
type Figures = (u64, Option<f64>);

/// One line of one profile in a row of the view.
#[derive(Debug, PartialEq)]
struct Side {
    /// The 1-based line number.
    n: u32,
    /// Its figures, where the profile counted the line.
    figures: Option<Figures>,
    /// Its text, with its indentation.
    text: String,
}

/// One row: a line of the pinned profile beside the line of this run it pairs with.
#[derive(Debug, PartialEq)]
struct Pair {
    a: Option<Side>,
    b: Option<Side>,
}

/// Every row in which either profile counted its line, in source order.
fn pairs(a: &Profile, b: &Profile) -> Vec<Pair> {
    let figures = |p: &Profile| -> BTreeMap<u32, Figures> {
        p.lines
            .iter()
            .map(|l| (l.line, (l.executions, l.efficiency)))
            .collect()
    };
    let (fa, fb) = (figures(a), figures(b));
    let lines = |p: &Profile, counted: &BTreeMap<u32, Figures>| -> Vec<String> {
        match &p.source {
            Some(source) => source.lines().map(|l| l.trim().to_owned()).collect(),
            // Without its text a profile's lines pair by number with nothing.
            None => vec![String::new(); counted.keys().last().copied().unwrap_or(0) as usize],
        }
    };
    let (la, lb) = (lines(a, &fa), lines(b, &fb));
    // Shown with their indentation; compared without it.
    let shown = |p: &Profile, trimmed: &[String]| -> Vec<String> {
        match &p.source {
            Some(source) => source.lines().map(|l| l.trim_end().to_owned()).collect(),
            None => trimmed.to_vec(),
        }
    };
    let (sa, sb) = (shown(a, &la), shown(b, &lb));
    let rows = if a.source.is_some() && b.source.is_some() {
        let ta: Vec<&str> = la.iter().map(String::as_str).collect();
        let tb: Vec<&str> = lb.iter().map(String::as_str).collect();
        align(&ta, &tb)
    } else {
        let n = la.len().max(lb.len());
        (0..n)
            .map(|i| ((i < la.len()).then_some(i), (i < lb.len()).then_some(i)))
            .collect()
    };
    let side = |i: Option<usize>, texts: &[String], counted: &BTreeMap<u32, Figures>| {
        i.map(|i| Side {
            n: i as u32 + 1,
            figures: counted.get(&(i as u32 + 1)).copied(),
            text: texts[i].clone(),
        })
    };
    rows.into_iter()
        .map(|(i, j)| Pair {
            a: side(i, &sa, &fa),
            b: side(j, &sb, &fb),
        })
        .filter(|p| {
            let counted = |s: &Option<Side>| s.as_ref().is_some_and(|s| s.figures.is_some());
            counted(&p.a) || counted(&p.b)
        })
        .collect()
}

/// A profile's control-flow efficiency, as the heading gives it.
fn headline(p: &Profile) -> String {
    p.control_flow_efficiency
        .map_or_else(|| "—".to_owned(), |e| format!("{:.1}%", e * 100.0))
}

/// What the heading says of the two kernels, and whether it is a warning.
fn heading(a: &Profile, b: &Profile) -> (String, bool) {
    let file = &b.kernel.file;
    match relation(a, file, b.source.as_deref().unwrap_or("")) {
        Relation::Same => (format!("Same kernel ({file}): lines pair by number"), false),
        Relation::Edited => (
            format!(
                "Two versions of {file}: lines pair by their text, so added or removed lines leave a gap"
            ),
            false,
        ),
        Relation::Different => (
            format!(
                "Different kernels: {} (pinned) and {file} (this run); lines pair by their text, \
                 where any is the same",
                a.kernel.file
            ),
            true,
        ),
    }
}

/// Widths of a pane's columns: line number, executions, efficiency (the text takes the rest).
const COLUMNS: [f32; 3] = [40.0, 64.0, 48.0];

/// The gap between the two panes.
const GAP: f32 = 12.0;

/// Two profiles line by line, in two panes of equal width that share the window's width and
/// scroll together.
pub fn side_by_side(ui: &mut egui::Ui, a: &Profile, b: &Profile) {
    let (text, warn) = heading(a, b);
    let mut heading = RichText::new(text).strong();
    if warn {
        heading = heading.color(Color32::from_rgb(220, 160, 40));
    }
    ui.add(egui::Label::new(heading).wrap());
    let pane = ((ui.available_width() - GAP) / 2.0).max(160.0);
    let row_height = ui.text_style_height(&egui::TextStyle::Monospace) + 4.0;
    // The panes' headings.
    let (rect, _) = ui.allocate_exact_size(vec2(2.0 * pane + GAP, row_height), Sense::hover());
    for (i, (who, p)) in [("pinned", a), ("this run", b)].into_iter().enumerate() {
        let x = rect.min.x + i as f32 * (pane + GAP);
        let cell = egui::Rect::from_min_size(egui::pos2(x, rect.min.y), vec2(pane, row_height));
        // The figure first: a narrow pane cuts the adapter's name, not the efficiency.
        let title = format!(
            "{who}: control-flow efficiency {} · {}",
            headline(p),
            profile_name(p)
        );
        at(
            ui,
            cell,
            egui::Align::Min,
            egui::Label::new(RichText::new(title).strong()).truncate(),
        );
    }
    column_heads(ui, pane, row_height);
    let pairs = pairs(a, b);
    egui::ScrollArea::vertical()
        .id_salt("side_by_side_scroll")
        .auto_shrink([false, true])
        .show_rows(ui, row_height, pairs.len(), |ui, range| {
            for pair in &pairs[range] {
                let (rect, _) =
                    ui.allocate_exact_size(vec2(2.0 * pane + GAP, row_height), Sense::hover());
                for (i, (who, side)) in [("pinned", &pair.a), ("this run", &pair.b)]
                    .into_iter()
                    .enumerate()
                {
                    let x = rect.min.x + i as f32 * (pane + GAP);
                    let cell = egui::Rect::from_min_size(
                        egui::pos2(x, rect.min.y),
                        vec2(pane, row_height),
                    );
                    if let Some(side) = side {
                        pane_row(ui, cell, who, side);
                    }
                }
            }
        });
}

/// The columns' names over both panes.
fn column_heads(ui: &mut egui::Ui, pane: f32, row_height: f32) {
    let (rect, _) = ui.allocate_exact_size(vec2(2.0 * pane + GAP, row_height), Sense::hover());
    for i in 0..2 {
        let mut x = rect.min.x + i as f32 * (pane + GAP);
        for (width, name) in COLUMNS.iter().zip(["line", "executions", "efficiency"]) {
            let cell =
                egui::Rect::from_min_size(egui::pos2(x, rect.min.y), vec2(*width, row_height));
            let name = egui::Label::new(RichText::new(name).small()).truncate();
            at(ui, cell, egui::Align::Max, name);
            x += width;
        }
        let rest = egui::Rect::from_min_max(
            egui::pos2(x + 8.0, rect.min.y),
            egui::pos2(rect.min.x + i as f32 * (pane + GAP) + pane, rect.max.y),
        );
        let source = egui::Label::new(RichText::new("source").small()).truncate();
        at(ui, rest, egui::Align::Min, source);
    }
}

/// One line of one profile, in `rect`: its number, executions, efficiency and text, as a
/// group named `{who} line {n}` (for screen readers and tests).
fn pane_row(ui: &mut egui::Ui, rect: egui::Rect, who: &str, side: &Side) {
    let group = egui::UiBuilder::new()
        .id_salt((who, side.n))
        .max_rect(rect)
        .accessibility_role(Role::Group)
        .accessibility_label(format!("{who} line {}", side.n));
    ui.scope_builder(group, |ui| {
        // The group is the whole cell, however short the line's text.
        ui.expand_to_include_rect(rect);
        let mut x = rect.min.x;
        let mut next = |width: f32| {
            let cell = egui::Rect::from_min_max(
                egui::pos2(x, rect.min.y),
                egui::pos2((x + width).min(rect.max.x), rect.max.y),
            );
            x += width;
            cell
        };
        let monospace = |text: String| egui::Label::new(RichText::new(text).monospace()).truncate();
        at(
            ui,
            next(COLUMNS[0]),
            egui::Align::Max,
            monospace(side.n.to_string()),
        );
        let (executions, efficiency) = match side.figures {
            Some((executions, efficiency)) => (executions.to_string(), efficiency),
            None => (String::new(), None),
        };
        at(
            ui,
            next(COLUMNS[1]),
            egui::Align::Max,
            monospace(executions),
        );
        let cell = next(COLUMNS[2]);
        if let Some(e) = efficiency {
            let text = RichText::new(format!("{:.0}%", e * 100.0))
                .monospace()
                .color(Color32::BLACK)
                .background_color(efficiency_colour(e));
            at(ui, cell, egui::Align::Max, egui::Label::new(text));
        }
        let rest = egui::Rect::from_min_max(egui::pos2(x + 8.0, rect.min.y), rect.max);
        if rest.width() > 0.0 {
            at(ui, rest, egui::Align::Min, monospace(side.text.clone()));
        }
    });
}

/// `widget` in `rect`, at its left (`Min`) or right (`Max`), centred in height.
fn at(ui: &mut egui::Ui, rect: egui::Rect, align: egui::Align, widget: impl egui::Widget) {
    let layout = match align {
        egui::Align::Max => egui::Layout::right_to_left(egui::Align::Center),
        _ => egui::Layout::left_to_right(egui::Align::Center),
    };
    ui.scope_builder(egui::UiBuilder::new().max_rect(rect).layout(layout), |ui| {
        ui.add(widget)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::profile_view::fixture;

    #[test]
    fn lines_pair_by_text_so_an_added_line_leaves_the_rest_aligned() {
        let a = fixture::profile();
        let mut b = fixture::profile();
        // This run: a comment line added above line 4, so every line from 4 on is one lower;
        // line 4's `if` now runs at a quarter.
        let source = fixture::SOURCE.replacen("    if", "    // even lanes\n    if", 1);
        b.source = Some(source);
        for line in &mut b.lines {
            if line.line >= 4 {
                line.line += 1;
            }
        }
        b.lines[1].efficiency = Some(0.25);
        let pairs = pairs(&a, &b);
        let numbers: Vec<(u32, u32)> = pairs
            .iter()
            .map(|p| (p.a.as_ref().unwrap().n, p.b.as_ref().unwrap().n))
            .collect();
        assert_eq!(numbers, [(3, 3), (4, 5), (5, 6), (7, 8), (8, 9), (10, 11)]);
        let four = &pairs[1];
        assert_eq!(four.a.as_ref().unwrap().figures, Some((4, Some(1.0))));
        assert_eq!(four.b.as_ref().unwrap().figures, Some((4, Some(0.25))));
        assert_eq!(four.b.as_ref().unwrap().text, "    if i % 2u == 0u {");
        assert_eq!(
            relation(&a, "k.wgsl", b.source.as_deref().unwrap()),
            Relation::Edited
        );
    }

    #[test]
    fn a_line_only_one_side_has_stands_alone_in_its_row() {
        let a = fixture::profile();
        let mut b = fixture::profile();
        b.source = Some(fixture::SOURCE.replace("    x += i;\n", "    x += i;\n    x *= 2u;\n"));
        let mut eleven = b.lines[5].clone();
        eleven.line = 11;
        b.lines.push(eleven);
        let pairs = pairs(&a, &b);
        let last = pairs.last().unwrap();
        assert_eq!(last.a, None);
        assert_eq!(
            last.b.as_ref().map(|s| (s.n, s.text.as_str())),
            Some((11, "    x *= 2u;"))
        );
    }

    #[test]
    fn another_kernel_is_told_apart_from_an_edit_and_from_the_same_source() {
        let a = fixture::profile();
        assert_eq!(relation(&a, "other.wgsl", fixture::SOURCE), Relation::Same);
        let other = "@compute @workgroup_size(8)\nfn f() {\n    let y = 2u;\n}\n";
        assert_eq!(relation(&a, "k.wgsl", other), Relation::Different);
        assert_eq!(relation(&a, "other.wgsl", other), Relation::Different);
        let mut b = fixture::profile();
        b.kernel.file = "other.wgsl".to_owned();
        b.source = Some(other.to_owned());
        let (text, warn) = heading(&a, &b);
        assert!(warn && text.starts_with("Different kernels: k.wgsl (pinned) and other.wgsl"));
    }

    #[test]
    fn a_profile_without_its_source_pairs_by_number_with_empty_text() {
        let mut a = fixture::profile();
        a.source = None;
        let pairs = pairs(&a, &fixture::profile());
        assert_eq!(pairs[0].a.as_ref().unwrap().text, "");
        assert_eq!(pairs[0].b.as_ref().unwrap().text, "    var x = 0u;");
        assert_eq!(pairs[0].a.as_ref().unwrap().n, 3);
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
