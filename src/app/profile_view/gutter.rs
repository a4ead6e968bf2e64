//! The annotated source: a heat gutter per line (efficiency as colour and as a percentage, a
//! branch's divergent share as a bar, executions as a number, a mark where the static verdict
//! and the run disagree), the line's tooltip ([`super::tooltip`]), and the legend above them.
//! What a row shows is worked out first ([`Cells`]) and painted after, so the figures can be
//! tested without a window.

use std::collections::BTreeMap;

use eframe::egui::{self, Color32, RichText, Sense, accesskit::Role, vec2};

use super::tooltip::{Counted, MISMATCH, Mismatch, show_tips};
use crate::app::charts::marker;
use crate::app::source_view::verdict_colour;
use crate::profile::report::{BranchProfile, CostVerdict, LineProfile, Profile};
use crate::report::units::format_count;
use crate::uniformity::Analysis;

/// Efficiency as a colour: red at 0, amber at 0.5, green at 1.
pub fn efficiency_colour(efficiency: f64) -> Color32 {
    let e = efficiency.clamp(0.0, 1.0) as f32;
    let (r, g) = if e < 0.5 {
        (220.0, 60.0 + 240.0 * e)
    } else {
        (220.0 - 320.0 * (e - 0.5), 180.0)
    };
    Color32::from_rgb(r as u8, g as u8, 60)
}

/// Behind the text of a line whose loop hit the loop cap.
const CAP_BACKGROUND: Color32 = Color32::from_rgba_unmultiplied_const(220, 60, 60, 90);

/// The filled part of a branch's bar.
const BAR: Color32 = Color32::from_rgb(220, 120, 60);

/// The filled part of a branch's bar where `--cost` found its divergence free on this adapter.
const FREE_BAR: Color32 = Color32::from_rgb(150, 150, 150);

/// The gutter's columns, in points: executions, efficiency, the branch bar and the mark. The
/// legend's column headers take the same widths, so they sit over their columns.
const EXECUTIONS_WIDTH: f32 = 44.0;
const EFFICIENCY_WIDTH: f32 = 40.0;
const BAR_WIDTH: f32 = 30.0;
const MARK_WIDTH: f32 = 12.0;

/// The legend's swatches: an efficiency, and the percentage the gutter prints for it.
const SWATCHES: [(f64, &str); 4] = [(0.0, "0%"), (0.25, "25%"), (0.5, "50%"), (1.0, "100%")];

/// The legend's column headers: width, heading, and what the column counts.
const COLUMNS: [(f32, &str, &str); 4] = [
    (
        EXECUTIONS_WIDTH,
        "execs",
        "Subgroup executions of the line (invocations without subgroups); for a loop's \
         line, of the loop's entries",
    ),
    (
        EFFICIENCY_WIDTH,
        "eff",
        "Efficiency: the share of the subgroup's lanes active, Σ active lanes / \
         (executions × subgroup size)",
    ),
    (
        BAR_WIDTH,
        "div",
        "A branch: the share of its executions whose lanes disagreed (grey where a cost run \
         found the divergence free on this adapter). A loop: the share of its trips' lane \
         slots left idle by lanes not in the loop",
    ),
    (MARK_WIDTH, "", ""),
];

/// The source with its gutter: executions, efficiency (colour and %), a branch's divergent
/// share, and a mark where static and dynamic disagree. Every line is an accessible group
/// named `line N`.
#[derive(Clone, Copy)]
pub struct Gutter<'a> {
    /// The source that ran.
    pub source: &'a str,
    /// What the run counted.
    pub profile: &'a Profile,
    /// The source's static analysis: line colours, and the verdicts in the tooltips.
    pub analysis: Option<&'a Analysis>,
}

impl Gutter<'_> {
    /// The legend and the rows, scrolled to `jump` where set; returns the counted line clicked.
    pub fn ui(self, ui: &mut egui::Ui, jump: &mut Option<u32>) -> Option<u32> {
        let rows = Rows::of(self.profile);
        let mut clicked = None;
        // Lanes are recorded by ballots, which only counts per subgroup make.
        let records_lanes = self.profile.subgroup_size.is_some();
        legend(ui, records_lanes);
        let row_height = ui.text_style_height(&egui::TextStyle::Monospace) + 2.0;
        let lines: Vec<&str> = self.source.lines().collect();
        // Vertical only: the gutter stays in view, and a long line is cut short (hover shows
        // every figure of the line).
        let mut area = egui::ScrollArea::vertical()
            .id_salt("profile_source")
            .auto_shrink([false, true])
            .max_height(ui.available_height().max(240.0));
        if let Some(line) = jump.take() {
            let spacing = ui.spacing().item_spacing.y;
            area = area
                .vertical_scroll_offset((line.saturating_sub(4)) as f32 * (row_height + spacing));
        }
        area.show_rows(ui, row_height, lines.len(), |ui, range| {
            for index in range {
                let row = rows.row(index as u32 + 1, lines[index]);
                if row.ui(ui, self.analysis) && records_lanes {
                    clicked = Some(row.at.n);
                }
            }
        });
        clicked
    }
}

/// A profile's figures by line, to make each row of the annotated source from.
struct Rows<'a> {
    by_line: BTreeMap<u32, &'a LineProfile>,
    branch_at: BTreeMap<u32, &'a BranchProfile>,
    branches: &'a [BranchProfile],
    cap_line: Option<u32>,
    subgroup_size: Option<u32>,
}

impl<'a> Rows<'a> {
    fn of(profile: &'a Profile) -> Self {
        Self {
            by_line: profile.lines.iter().map(|l| (l.line, l)).collect(),
            branch_at: profile.branches.iter().map(|b| (b.line, b)).collect(),
            branches: &profile.branches,
            cap_line: profile.loop_cap_line,
            subgroup_size: profile.subgroup_size,
        }
    }

    /// Line `n` (1-based), whose text is `text`.
    fn row<'t>(&self, n: u32, text: &'t str) -> SourceRow<'t>
    where
        'a: 't,
    {
        SourceRow {
            text,
            at: Counted {
                n,
                line: self.by_line.get(&n).copied(),
                branch: self.branch_at.get(&n).copied(),
                branches: {
                    // The profile's branches are in line order.
                    let from = self.branches.partition_point(|b| b.line < n);
                    let to = self.branches.partition_point(|b| b.line <= n);
                    &self.branches[from..to]
                },
                cap: self.cap_line == Some(n),
                subgroup_size: self.subgroup_size,
            },
        }
    }
}

/// One line of the annotated source, with what the run counted there.
#[derive(Debug)]
struct SourceRow<'a> {
    text: &'a str,
    at: Counted<'a>,
}

impl SourceRow<'_> {
    /// The gutter and the text, with a tooltip; returns whether a counted line was clicked.
    fn ui(&self, ui: &mut egui::Ui, analysis: Option<&Analysis>) -> bool {
        let Counted { n, line, cap, .. } = self.at;
        let group = egui::UiBuilder::new()
            .id_salt(("profile line", n))
            .accessibility_role(Role::Group)
            .accessibility_label(format!("line {n}"));
        let mut clicked = false;
        let mut text_response = None;
        let response = ui
            .scope_builder(group, |ui| {
                ui.horizontal(|ui| {
                    ui.spacing_mut().item_spacing.x = 4.0;
                    paint_cells(ui, &self.cells());
                    let mut text = RichText::new(format!("{n:>3} {}", self.text)).monospace();
                    if let Some(colour) = self.background(analysis) {
                        text = text.background_color(colour);
                    }
                    // The line's text is what a click hits: record its lanes.
                    let text = ui.add(
                        egui::Label::new(text)
                            .truncate()
                            // The row's tooltip gives every figure; the cut text's own
                            // tooltip would take its place (the text is in the editor).
                            .show_tooltip_when_elided(false)
                            .selectable(false)
                            .sense(Sense::click()),
                    );
                    clicked = text.clicked() && line.is_some();
                    text_response = Some(text);
                })
                .response
            })
            .inner;
        if line.is_some() || cap {
            // Over the cells or over the text (which takes the clicks, and so the hover).
            let text_hovered = text_response.as_ref().is_some_and(egui::Response::hovered);
            let tips = |ui: &mut egui::Ui| show_tips(ui, &self.at.tips(analysis));
            match text_response {
                Some(text) if text_hovered => {
                    text.on_hover_ui(tips);
                }
                _ => {
                    response.on_hover_ui(tips);
                }
            }
        }
        clicked
    }

    /// What the gutter shows for this line.
    fn cells(&self) -> Cells {
        let Counted {
            line,
            branch,
            subgroup_size,
            ..
        } = self.at;
        Cells::of(line, branch, subgroup_size)
    }

    /// Behind the line's text: red where a loop hit the cap, else the static verdict's colour.
    fn background(&self, analysis: Option<&Analysis>) -> Option<Color32> {
        if self.at.cap {
            return Some(CAP_BACKGROUND);
        }
        analysis
            .and_then(|a| a.line(self.at.n))
            .map(|v| verdict_colour(v.subgroup))
    }
}

/// What the gutter shows for one line.
#[derive(Clone, Debug, PartialEq)]
struct Cells {
    /// Its executions; empty where the run counted nothing on the line.
    executions: String,
    /// Its efficiency as a whole percentage; empty where none was measured.
    efficiency: String,
    /// The efficiency's colour behind it; transparent where none was measured.
    colour: Color32,
    /// The bar of a branch on the line.
    bar: Option<Bar>,
    /// Where the static verdict and the run disagree.
    mark: Option<Mismatch>,
}

/// A branch's bar: its divergent share, or for a loop the share of its trips' lane slots left
/// idle by lanes not in the loop.
#[derive(Clone, Debug, PartialEq)]
struct Bar {
    /// The share filled, where measured.
    share: Option<f64>,
    /// What it says on hover (and to a screen reader).
    text: String,
    /// `--cost` measured the divergence as free here: the bar is grey.
    free: bool,
}

impl Cells {
    fn of(
        line: Option<&LineProfile>,
        branch: Option<&BranchProfile>,
        subgroup_size: Option<u32>,
    ) -> Self {
        let efficiency = line.and_then(|l| l.efficiency);
        let bar = branch.map(|b| {
            let (share, name) = match b.trip_slots(subgroup_size) {
                Some((ran, slots)) if slots > 0 => {
                    (Some(1.0 - ran as f64 / slots as f64), "idle in its trips")
                }
                _ => (b.divergent_fraction, "divergent"),
            };
            let mut text = match share {
                Some(f) => format!("{name} {:.0}%", f * 100.0),
                None => format!("{name} —"),
            };
            if let Some(cost) = &b.cost {
                text = format!("{text}; cost here: {}", cost.short());
            }
            let free = b
                .cost
                .as_ref()
                .is_some_and(|c| c.verdict == CostVerdict::FreeHere);
            Bar { share, text, free }
        });
        Self {
            executions: line.map_or_else(String::new, |l| format_count(l.executions)),
            efficiency: efficiency.map_or_else(String::new, |e| format!("{:.0}%", e * 100.0)),
            colour: efficiency.map_or(Color32::TRANSPARENT, efficiency_colour),
            bar,
            mark: line.and_then(|l| Mismatch::of(l, branch)),
        }
    }
}

/// The gutter cells of one line: fixed widths, so the source lines up.
fn paint_cells(ui: &mut egui::Ui, cells: &Cells) {
    let mono = |text: &str| RichText::new(text).monospace();
    fixed(ui, EXECUTIONS_WIDTH, |ui| {
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.label(mono(&cells.executions));
        });
    });
    fixed(ui, EFFICIENCY_WIDTH, |ui| {
        let text = mono(&cells.efficiency)
            .color(Color32::BLACK)
            .background_color(cells.colour);
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.label(text);
        });
    });
    let (rect, response) = ui.allocate_exact_size(vec2(BAR_WIDTH, 10.0), Sense::hover());
    if let Some(bar) = &cells.bar {
        let painter = ui.painter();
        painter.rect_filled(rect, 1.0, ui.visuals().extreme_bg_color);
        if let Some(f) = bar.share {
            let mut filled = rect;
            filled.set_width(rect.width() * f as f32);
            let fill = if bar.free { FREE_BAR } else { BAR };
            painter.rect_filled(filled, 1.0, fill);
        }
        response.on_hover_text(&bar.text).widget_info(|| {
            egui::WidgetInfo::labeled(egui::Role::ProgressIndicator, true, &bar.text)
        });
    }
    fixed(ui, MARK_WIDTH, |ui| {
        if let Some(m) = cells.mark {
            marker(ui, egui_plot::MarkerShape::Diamond, MISMATCH).on_hover_text(m.explain());
        }
    });
}

/// The key to the gutter's columns; the swatches' text is black, as in the gutter's cells.
fn legend(ui: &mut egui::Ui, records_lanes: bool) {
    ui.horizontal_wrapped(|ui| {
        ui.weak("efficiency:");
        for (e, name) in SWATCHES {
            ui.label(
                RichText::new(format!(" {name} "))
                    .monospace()
                    .color(Color32::BLACK)
                    .background_color(efficiency_colour(e)),
            );
        }
        ui.weak("·");
        marker(ui, egui_plot::MarkerShape::Diamond, MISMATCH);
        ui.weak("static verdict and run disagree");
    });
    // The gutter's column headers, at the gutter's widths.
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        for (width, name, about) in COLUMNS {
            fixed(ui, width, |ui| {
                if !name.is_empty() {
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        ui.label(RichText::new(name).small().strong())
                            .on_hover_text(about);
                    });
                }
            });
        }
        let heading = if records_lanes {
            "line · source (hover a line for every figure; click it to record its lanes)"
        } else {
            "line · source (hover a line for every figure)"
        };
        ui.label(RichText::new(heading).small().strong());
    });
}

fn fixed(ui: &mut egui::Ui, width: f32, add: impl FnOnce(&mut egui::Ui)) {
    let height = ui.text_style_height(&egui::TextStyle::Monospace);
    ui.allocate_ui_with_layout(
        vec2(width, height),
        egui::Layout::left_to_right(egui::Align::Center),
        |ui| {
            ui.set_width(width);
            add(ui);
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::profile_view::fixture;

    #[test]
    fn efficiency_runs_red_through_amber_to_green_and_clamps() {
        assert_eq!(efficiency_colour(0.0), Color32::from_rgb(220, 60, 60));
        assert_eq!(efficiency_colour(0.5), Color32::from_rgb(220, 180, 60));
        assert_eq!(efficiency_colour(1.0), Color32::from_rgb(60, 180, 60));
        assert_eq!(efficiency_colour(-1.0), efficiency_colour(0.0));
        assert_eq!(efficiency_colour(2.0), efficiency_colour(1.0));
    }

    #[test]
    fn each_row_takes_its_lines_figures_its_branch_and_the_cap() {
        let mut profile = fixture::profile();
        profile.loop_cap_line = Some(7);
        let rows = Rows::of(&profile);
        let row = rows.row(4, "if");
        assert_eq!(row.at.line.map(|l| l.executions), Some(4));
        assert_eq!(row.at.branch.map(|b| b.kind.as_str()), Some("if"));
        assert!(!row.at.cap);
        let row = rows.row(7, "for");
        assert_eq!(row.at.branch.map(|b| b.kind.as_str()), Some("loop"));
        assert!(row.at.cap);
        assert_eq!(row.background(None), Some(CAP_BACKGROUND));
        let blank = rows.row(1, "@compute");
        assert!(blank.at.line.is_none() && blank.at.branch.is_none());
        assert_eq!(blank.background(None), None);
        assert_eq!(row.at.subgroup_size, Some(8));
    }

    #[test]
    fn the_gutter_prints_executions_efficiency_its_colour_and_a_branch_bar() {
        let profile = fixture::profile();
        let rows = Rows::of(&profile);
        // Line 5: half the lanes, inside the `if`.
        let cells = rows.row(5, "").cells();
        assert_eq!(cells.executions, "4");
        assert_eq!(cells.efficiency, "50%");
        assert_eq!(cells.colour, efficiency_colour(0.5));
        assert_eq!(cells.bar, None);
        // Line 4: the `if` diverged in every execution.
        let bar = rows.row(4, "").cells().bar.expect("a bar");
        assert_eq!(bar.share, Some(1.0));
        assert_eq!(bar.text, "divergent 100%");
        // Line 7: a loop's bar is the share of its trips' lane slots left idle: 48 of 64 ran.
        let bar = rows.row(7, "").cells().bar.expect("a bar");
        assert_eq!(bar.share, Some(0.25));
        assert_eq!(bar.text, "idle in its trips 25%");
        // Without subgroups a loop has no lane slots: its divergent share, unmeasured here.
        let mut loop_ = profile.branches[1].clone();
        loop_.divergent_fraction = None;
        let bar = Cells::of(None, Some(&loop_), None).bar.expect("a bar");
        assert_eq!((bar.share, bar.text.as_str()), (None, "divergent —"));
        // A line the run never counted: nothing, on a transparent ground.
        let empty = rows.row(1, "").cells();
        assert_eq!(
            (empty.executions.as_str(), empty.efficiency.as_str()),
            ("", "")
        );
        assert_eq!(empty.colour, Color32::TRANSPARENT);
    }

    #[test]
    fn a_mark_where_the_static_verdict_and_the_run_disagree() {
        let profile = fixture::profile();
        let rows = Rows::of(&profile);
        // Line 3: statically uniform, ran with idle lanes.
        assert_eq!(
            rows.row(3, "").cells().mark,
            Some(Mismatch::UniformButDiverged)
        );
        // Line 10: statically non-uniform, every lane every time, no branch.
        assert_eq!(
            rows.row(10, "").cells().mark,
            Some(Mismatch::NonUniformNeverDiverged)
        );
        // Line 4: non-uniform and its branch diverged: they agree.
        assert_eq!(rows.row(4, "").cells().mark, None);
    }

    #[test]
    fn a_rows_text_takes_its_static_verdicts_colour() {
        let profile = fixture::profile();
        let analysis = crate::uniformity::analyze_source("k.wgsl", fixture::SOURCE)
            .expect("the fixture's source analyses");
        let verdict = analysis.line(5).expect("a verdict").subgroup;
        let rows = Rows::of(&profile);
        assert_eq!(
            rows.row(5, "").background(Some(&analysis)),
            Some(verdict_colour(verdict))
        );
        assert_eq!(rows.row(5, "").background(None), None);
    }

    #[test]
    fn the_legend_names_each_swatch_as_the_gutter_prints_it_over_its_columns() {
        for (e, name) in SWATCHES {
            let line = LineProfile {
                line: 1,
                executions: 1,
                active_lanes: None,
                efficiency: Some(e),
                static_verdict: None,
            };
            let cells = Cells::of(Some(&line), None, None);
            assert_eq!(cells.efficiency, name);
            assert_eq!(cells.colour, efficiency_colour(e));
        }
        let widths: Vec<f32> = COLUMNS.iter().map(|c| c.0).collect();
        assert_eq!(
            widths,
            [EXECUTIONS_WIDTH, EFFICIENCY_WIDTH, BAR_WIDTH, MARK_WIDTH]
        );
        assert!(
            COLUMNS[..3]
                .iter()
                .all(|(_, name, about)| !name.is_empty() && !about.is_empty())
        );
    }
}
