//! A profile painted onto its source: a heat gutter per line (efficiency as colour and as a
//! percentage, divergent share of a branch as a bar, executions as a number), a tooltip per line
//! with every figure and the static verdict with its reason, marks where the static verdict and
//! the run disagree, and beside it the summary and the branches ranked by wasted lane slots.

use std::collections::BTreeMap;

use eframe::egui::{self, Color32, RichText, Sense, accesskit::Role, vec2};

use super::dispatch_map::DispatchMap;
use super::pictures::Pictures;
use crate::profile::report::{BranchProfile, LineProfile, Profile};
use crate::profile::run::Finished;
use crate::report::units::format_ns;
use crate::uniformity::{Analysis, Verdict};

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

/// The colour of a disagreement mark.
const MISMATCH: Color32 = Color32::from_rgb(230, 150, 30);

/// How a line's static verdict and what the run saw disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// Statically non-uniform, but every execution had every lane: on this input it never
    /// diverged (a hint that the code could prove uniformity).
    NonUniformNeverDiverged,
    /// Statically uniform, but executions ran with idle lanes (or its branch diverged).
    UniformButDiverged,
}

impl Mismatch {
    /// Of a line.
    pub fn of(line: &LineProfile, branch: Option<&BranchProfile>) -> Option<Self> {
        let full = line.efficiency.is_some_and(|e| e >= 1.0 - 1e-9);
        let idle = line.efficiency.is_some_and(|e| e < 1.0 - 1e-9);
        match line.static_verdict.as_deref() {
            Some("non-uniform") if full && branch.is_none_or(|b| b.divergent == 0) => {
                Some(Self::NonUniformNeverDiverged)
            }
            Some("uniform") if idle => Some(Self::UniformButDiverged),
            _ => None,
        }
    }

    fn explain(self) -> &'static str {
        match self {
            Self::NonUniformNeverDiverged => {
                "statically non-uniform, but it never ran with idle lanes on this input: the \
                 condition it depends on could be computed from a uniform value"
            }
            Self::UniformButDiverged => {
                "statically uniform, yet it ran with idle lanes: lanes left earlier (or a partial \
                 subgroup at the dispatch's edge)"
            }
        }
    }
}

/// A run's profile painted onto the source it ran.
#[derive(Clone, Copy)]
pub struct ProfilePane<'a> {
    /// The source that ran.
    pub source: &'a str,
    /// The run.
    pub finished: &'a Finished,
    /// The source's static analysis: line colours, and the verdicts in the tooltips.
    pub analysis: Option<&'a Analysis>,
}

/// Which view of a profile the pane shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PaneView {
    /// The summary, pictures, branch table and the annotated source.
    #[default]
    Source,
    /// The lanes recorded at a line: the lane map beside the dispatch map.
    Lanes,
    /// A pinned profile beside this one, line by line.
    SideBySide,
}

/// What the pane shows beside the profile, and keeps between frames.
pub struct PaneParts<'a> {
    /// The view shown.
    pub view: &'a mut PaneView,
    /// A line to bring into view (set by a branch row).
    pub jump: &'a mut Option<u32>,
    /// The lanes recorded at a line, as a lane grid.
    pub lanes: Option<&'a mut LaneMap>,
    /// The same lanes over the whole dispatch.
    pub dispatch_map: Option<&'a mut DispatchMap>,
    /// The run's textures.
    pub pictures: &'a mut Pictures,
    /// A profile kept to show side by side with this one.
    pub pinned: Option<&'a Profile>,
}

/// What the user asked of the pane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaneAction {
    /// Run again, recording which lanes run this line.
    RecordLanes(u32),
    /// Save this picture as PNG.
    SavePicture(usize),
    /// Save the profile document.
    SaveProfile,
    /// Keep this profile to show beside the next.
    Pin,
    /// Stop showing the kept profile.
    Unpin,
}

impl ProfilePane<'_> {
    /// The whole pane: the cap message or the summary, the textures, the branch table, the
    /// lanes recorded at a line beside their dispatch map, a kept profile side by side, and
    /// the source with its gutter.
    pub fn ui(self, ui: &mut egui::Ui, parts: PaneParts<'_>) -> Option<PaneAction> {
        let profile = &self.finished.profile;
        if let Some(message) = &self.finished.cap_hit {
            ui.add(
                egui::Label::new(RichText::new(message).color(Color32::from_rgb(220, 60, 60)))
                    .wrap(),
            );
        }
        let PaneParts {
            view,
            jump,
            lanes,
            dispatch_map,
            pictures,
            pinned,
        } = parts;
        let mut action = toolbar(ui, view, lanes.as_ref().map(|l| l.line), pinned);
        match *view {
            PaneView::Lanes if lanes.is_some() => {
                let lanes = lanes.expect("checked");
                match dispatch_map {
                    Some(map) => {
                        // The lane map needs a few cells across; the dispatch map takes the
                        // rest.
                        let height = ui.available_height();
                        let left = (ui.available_width() * 0.4).min(360.0);
                        ui.horizontal_top(|ui| {
                            ui.allocate_ui_with_layout(
                                vec2(left, height),
                                egui::Layout::top_down(egui::Align::Min),
                                |ui| {
                                    ui.set_width(left);
                                    lanes.ui(ui);
                                },
                            );
                            ui.separator();
                            ui.vertical(|ui| map.ui(ui, pictures.images()));
                        });
                    }
                    None => lanes.ui(ui),
                }
                return action;
            }
            PaneView::SideBySide if pinned.is_some() => {
                side_by_side(ui, pinned.expect("checked"), profile);
                return action;
            }
            _ => *view = PaneView::Source,
        }
        // Above the source, scrolled within at most half the pane, so the annotated source
        // keeps the rest in view.
        let top = (ui.available_height() * 0.45).max(160.0);
        egui::ScrollArea::vertical()
            .id_salt("profile_pane_top")
            .max_height(top)
            .auto_shrink([false, true])
            .show(ui, |ui| {
                summary(ui, profile);
                inputs(ui, self.finished);
                if let Some(index) = pictures.ui(ui) {
                    action = Some(PaneAction::SavePicture(index));
                }
                egui::CollapsingHeader::new("Branches and loops, by wasted lane slots")
                    .default_open(true)
                    .show(ui, |ui| branch_table(ui, profile, jump));
            });
        if lanes.is_none() {
            ui.weak(
                "Click a line to record, at that line, which lanes ran each subgroup execution, \
                 and where on the dispatch they ran.",
            );
        }
        self.gutter_source(ui, jump)
            .map(PaneAction::RecordLanes)
            .or(action)
    }

    /// The source with a gutter: executions, efficiency (colour and %), a branch's divergent
    /// share, and a mark where static and dynamic disagree. Every line is an accessible group
    /// named `line N`.
    pub fn gutter_source(self, ui: &mut egui::Ui, jump: &mut Option<u32>) -> Option<u32> {
        let profile = &self.finished.profile;
        let mut clicked = None;
        let by_line: BTreeMap<u32, &LineProfile> =
            profile.lines.iter().map(|l| (l.line, l)).collect();
        let branch_at: BTreeMap<u32, &BranchProfile> =
            profile.branches.iter().map(|b| (b.line, b)).collect();
        legend(ui);
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
                let n = index as u32 + 1;
                let row = SourceRow {
                    n,
                    text: lines[index],
                    line: by_line.get(&n).copied(),
                    branch: branch_at.get(&n).copied(),
                    cap: profile.loop_cap_line == Some(n),
                    subgroup_size: profile.subgroup_size,
                };
                if row.ui(ui, self.analysis) {
                    clicked = Some(n);
                }
            }
        });
        clicked
    }
}

/// One line of the annotated source, with what the run counted there.
struct SourceRow<'a> {
    /// The 1-based line number.
    n: u32,
    text: &'a str,
    line: Option<&'a LineProfile>,
    branch: Option<&'a BranchProfile>,
    /// Whether a loop here hit the loop cap.
    cap: bool,
    /// The profile's subgroup size.
    subgroup_size: Option<u32>,
}

impl SourceRow<'_> {
    /// The gutter and the text, with a tooltip; returns whether a counted line was clicked.
    fn ui(&self, ui: &mut egui::Ui, analysis: Option<&Analysis>) -> bool {
        let n = self.n;
        let group = egui::UiBuilder::new()
            .id_salt(("profile line", n))
            .accessibility_role(Role::Group)
            .accessibility_label(format!("line {n}"));
        let mut clicked = false;
        let response = ui
            .scope_builder(group, |ui| {
                ui.horizontal(|ui| {
                    ui.spacing_mut().item_spacing.x = 4.0;
                    gutter(ui, self.line, self.branch, self.subgroup_size);
                    let mut text = RichText::new(format!("{n:>3} {}", self.text)).monospace();
                    if self.cap {
                        text =
                            text.background_color(Color32::from_rgba_unmultiplied(220, 60, 60, 90));
                    } else if let Some(v) = analysis.and_then(|a| a.line(n)) {
                        text =
                            text.background_color(super::source_view::verdict_colour(v.subgroup));
                    }
                    // The line's text is what a click hits: record its lanes.
                    let text = ui.add(
                        egui::Label::new(text)
                            .truncate()
                            .selectable(false)
                            .sense(Sense::click()),
                    );
                    clicked = text.clicked() && self.line.is_some();
                })
                .response
            })
            .inner;
        if self.line.is_some() || self.cap {
            response.on_hover_ui(|ui| line_tooltip(ui, self, analysis));
        }
        clicked
    }
}

/// The lanes recorded at one line (`--lanes`), as a lane grid: one row per subgroup execution,
/// one colour per distinct ballot, grey for lanes not there.
pub struct LaneMap {
    /// The line.
    pub line: u32,
    /// Executions at it (more than the rows when the records ran out).
    pub executions: u64,
    records: Vec<crate::report::LaneRecord>,
    /// Each row's workgroup, subgroup and (where its subgroup ran the line more than once)
    /// trip, in row order.
    labels: Vec<String>,
    cache: super::lane_grid::LaneCache,
}

impl LaneMap {
    /// The map of a profile's lane capture, if it has one. Lane ids assume the linear mapping
    /// (subgroup_invocation_id = local_invocation_index mod size) every device seen so far uses.
    pub fn of(profile: &Profile) -> Option<Self> {
        let capture = profile.lanes.as_ref()?;
        let size = profile.subgroup_size.unwrap_or(32).max(1);
        let [wx, wy, wz] = profile.kernel.workgroup_size;
        let [dx, dy, _] = profile.kernel.dispatch;
        let per_workgroup = (wx * wy * wz).div_ceil(size);
        let records: Vec<crate::report::LaneRecord> = capture
            .records
            .iter()
            .map(|e| {
                let lowest = (0..4)
                    .find(|&w| e.ballot[w] != 0)
                    .map_or(0, |w| w as u32 * 32 + e.ballot[w].trailing_zeros());
                let base = e.first_local_index.saturating_sub(lowest);
                let [x, y, z] = e.workgroup;
                let workgroup = x + dx * (y + dy * z);
                let active = |i: u32| e.ballot[(i / 32) as usize % 4] & (1 << (i % 32)) != 0;
                crate::report::LaneRecord {
                    point: 0,
                    subgroup: workgroup * per_workgroup + base / size,
                    local_index: (0..size).map(|i| base + i).collect(),
                    ballot: (0..size)
                        .map(|i| if active(i) { e.ballot } else { [0; 4] })
                        .collect(),
                    // A profile records no value per lane.
                    value: Vec::new(),
                }
            })
            .collect();
        let mut labels = lane_labels(capture, &records, profile.kernel.dispatch);
        // The grid shows rows by subgroup (a stable sort): the labels follow the same order.
        let mut order: Vec<usize> = (0..records.len()).collect();
        order.sort_by_key(|&i| records[i].subgroup);
        let records: Vec<_> = order.iter().map(|&i| records[i].clone()).collect();
        labels = order.iter().map(|&i| labels[i].clone()).collect();
        let cache = super::lane_grid::LaneCache::new(&records);
        Some(Self {
            line: capture.line,
            executions: capture.executions,
            records,
            labels,
            cache,
        })
    }

    /// The heading and the grid.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let kept = self.records.len() as u64;
        ui.strong(format!(
            "Lanes at line {}: {} subgroup executions{}",
            self.line,
            self.executions,
            if kept < self.executions {
                format!(" (the first {kept} shown)")
            } else {
                String::new()
            }
        ));
        ui.weak(
            "One row per subgroup execution, labelled by workgroup, subgroup within it and, \
             where a subgroup ran the line again (a loop), its trip; one colour per set of \
             lanes that ran the line together; grey: lanes not there. Hover a lane for its ids.",
        );
        // A row may repeat a subgroup (a loop's trips): the grid's sort is stable, so they
        // stay in the order they ran.
        let records = &self.records;
        let cache = &mut self.cache;
        egui::ScrollArea::vertical()
            .id_salt("lane_map")
            .max_height(ui.available_height().max(200.0))
            .show(ui, |ui| {
                super::lane_grid::LaneGrid::cached(records, 0, cache)
                    .max_cell(14.0)
                    .row_labels(&self.labels)
                    .show(ui);
            });
    }
}

/// A label per record: `wg X[,Y[,Z]] sg I` (as many workgroup ids as the dispatch has
/// dimensions), and `trip T` where its subgroup ran the line more than once.
fn lane_labels(
    capture: &crate::profile::report::LaneCapture,
    records: &[crate::report::LaneRecord],
    dispatch: [u32; 3],
) -> Vec<String> {
    let mut runs: BTreeMap<u32, u32> = BTreeMap::new();
    for record in records {
        *runs.entry(record.subgroup).or_insert(0) += 1;
    }
    let dimensions = if dispatch[2] > 1 {
        3
    } else if dispatch[1] > 1 {
        2
    } else {
        1
    };
    let mut trips: BTreeMap<u32, u32> = BTreeMap::new();
    capture
        .records
        .iter()
        .zip(records)
        .map(|(execution, record)| {
            let ids: Vec<String> = execution.workgroup[..dimensions]
                .iter()
                .map(u32::to_string)
                .collect();
            let size = record.local_index.len().max(1) as u32;
            let index = record.local_index.first().copied().unwrap_or(0) / size;
            let mut label = format!("wg {} sg {index}", ids.join(","));
            if runs[&record.subgroup] > 1 {
                let trip = trips.entry(record.subgroup).or_insert(0);
                *trip += 1;
                label.push_str(&format!(" trip {trip}"));
            }
            label
        })
        .collect()
}

/// Subgroup size, control-flow efficiency and the two times.
pub fn summary(ui: &mut egui::Ui, profile: &Profile) {
    let mut parts: Vec<(String, &str)> = Vec::new();
    match profile.subgroup_size {
        Some(size) => parts.push((
            format!("subgroup size {size}"),
            "The `subgroup_size` builtin as the pipeline ran: efficiency is taken against it",
        )),
        None => parts.push((
            "no subgroup operations: counts are invocations".to_owned(),
            "This adapter has no subgroups: each line counts invocations, and efficiency is not \
             measured",
        )),
    }
    if let Some(e) = profile.control_flow_efficiency {
        parts.push((
            format!("control-flow efficiency {:.1}%", e * 100.0),
            "Σ active lanes / (Σ executions × subgroup size), summed over the kernel's blocks \
             (each straight run of statements once), not over the lines below: a block of \
             several lines counts once here and once per line there",
        ));
    }
    if let Some(e) = profile.branch_efficiency {
        parts.push((
            format!("branch efficiency {:.1}%", e * 100.0),
            "1 − Σ divergent / Σ evaluations over the branches and loops in the table below",
        ));
    }
    match &profile.timing {
        Some(t) => parts.push((
            format!(
                "{} alone, {} instrumented ({:.2}×)",
                format_ns(t.kernel_ns),
                format_ns(t.instrumented_ns),
                t.overhead
            ),
            "Medians of the timed repetitions, the kernel alone and with divlab's counters, \
             interleaved",
        )),
        None => parts.push((
            "not timed".to_owned(),
            "The run hit the loop cap, or was opened from a document without times",
        )),
    }
    ui.horizontal_wrapped(|ui| {
        for (i, (text, about)) in parts.iter().enumerate() {
            if i > 0 {
                ui.strong("·");
            }
            ui.strong(text).on_hover_text(*about);
        }
    });
    if !profile.notes.is_empty() {
        egui::CollapsingHeader::new(format!(
            "Notes ({}): how the counts were taken, and what the kernel ran on",
            profile.notes.len()
        ))
        .id_salt("profile_notes")
        .default_open(false)
        .show(ui, |ui| {
            for note in &profile.notes {
                ui.add(egui::Label::new(format!("• {note}")).wrap());
            }
        });
    }
}

/// One row per branch, most wasted lane slots first; a click brings its line into view.
pub fn branch_table(ui: &mut egui::Ui, profile: &Profile, jump: &mut Option<u32>) {
    if profile.branches.is_empty() {
        ui.weak("No branches reached.");
        return;
    }
    // Branches that never ran say nothing about divergence; a kernel with many (the study's
    // 128 generated paths) would push the annotated source out of sight.
    let (mut branches, idle): (Vec<&BranchProfile>, Vec<&BranchProfile>) =
        profile.branches.iter().partition(|b| b.executions > 0);
    branches.sort_by_key(|b| (std::cmp::Reverse(b.wasted_lane_slots.unwrap_or(0)), b.line));
    if !idle.is_empty() {
        ui.weak(format!(
            "{} branch{} never ran: not listed.",
            idle.len(),
            if idle.len() == 1 { "" } else { "es" }
        ));
    }
    if branches.is_empty() {
        return;
    }
    // At most about ten rows tall, so the annotated source stays in view.
    let row = ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
    egui::ScrollArea::vertical()
        .id_salt("branch_table_scroll")
        .max_height(11.0 * row)
        .show(ui, |ui| {
            branch_grid(ui, branches, profile.subgroup_size, jump)
        });
}

fn branch_grid(
    ui: &mut egui::Ui,
    branches: Vec<&BranchProfile>,
    subgroup_size: Option<u32>,
    jump: &mut Option<u32>,
) {
    egui::Grid::new("branch_table")
        .striped(true)
        .num_columns(5)
        .show(ui, |ui| {
            for (heading, about) in [
                ("line", "Click a line number to bring it into view"),
                ("kind", "if, switch or loop"),
                (
                    "executions",
                    "Subgroup executions that evaluated the branch; for a loop, its trips \
                     (subgroup executions of its body)",
                ),
                (
                    "divergent",
                    "Executions in which the subgroup's lanes disagreed; for a loop, the tests \
                     at which some lanes left while others went on",
                ),
                (
                    "wasted lane slots",
                    "Lane slots the subgroups paid for inside it but left idle: Σ (executions × \
                     subgroup size − active lanes) over the blocks it opens; for a loop, the \
                     slots of lanes that had already left",
                ),
            ] {
                ui.strong(heading).on_hover_text(about);
            }
            ui.end_row();
            for b in branches {
                if ui
                    .link(format!("{}", b.line))
                    .on_hover_text("Show this line")
                    .clicked()
                {
                    *jump = Some(b.line);
                }
                ui.label(&b.kind);
                match b.loop_figures(subgroup_size) {
                    Some(figures) => {
                        ui.label(format!("{} trips", b.trips.unwrap_or(0)))
                            .on_hover_text(&figures);
                        ui.label(format!("lanes left on {} tests", b.divergent))
                            .on_hover_text(&figures);
                    }
                    None => {
                        ui.label(b.executions.to_string());
                        ui.label(match b.divergent_fraction {
                            Some(f) => format!("{:.0}% ({})", f * 100.0, b.divergent),
                            None => b.divergent.to_string(),
                        });
                    }
                }
                ui.label(
                    b.wasted_lane_slots
                        .map_or_else(|| "—".to_owned(), |w| w.to_string()),
                );
                ui.end_row();
            }
        });
}

/// The key to the gutter's columns.
fn legend(ui: &mut egui::Ui) {
    ui.horizontal_wrapped(|ui| {
        ui.weak("efficiency:");
        for (e, name) in [(0.0, "0%"), (0.25, "25%"), (0.5, "50%"), (1.0, "100%")] {
            ui.label(
                RichText::new(format!(" {name} "))
                    .monospace()
                    .background_color(efficiency_colour(e)),
            );
        }
        ui.weak("·");
        super::charts::marker(ui, egui_plot::MarkerShape::Diamond, MISMATCH);
        ui.weak("static verdict and run disagree");
    });
    // The gutter's column headers, at the gutter's widths.
    ui.horizontal(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        for (width, name, about) in [
            (
                44.0,
                "execs",
                "Subgroup executions of the line (invocations without subgroups); for a loop's \
                 line, of the loop's entries",
            ),
            (
                40.0,
                "eff",
                "Efficiency: the share of the subgroup's lanes active, Σ active lanes / \
                 (executions × subgroup size)",
            ),
            (
                30.0,
                "div",
                "A branch: the share of its executions whose lanes disagreed. A loop: the share \
                 of its trips' lane slots left idle by lanes that had left",
            ),
            (12.0, "", ""),
        ] {
            fixed(ui, width, |ui| {
                if !name.is_empty() {
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        ui.label(RichText::new(name).small().strong())
                            .on_hover_text(about);
                    });
                }
            });
        }
        ui.label(
            RichText::new(
                "line · source (hover a line for every figure; click it to record its lanes)",
            )
            .small()
            .strong(),
        );
    });
}

/// The gutter cells of one line: fixed widths, so the source lines up.
fn gutter(
    ui: &mut egui::Ui,
    line: Option<&LineProfile>,
    branch: Option<&BranchProfile>,
    subgroup_size: Option<u32>,
) {
    let mono = |text: String| RichText::new(text).monospace();
    let executions = line.map_or_else(String::new, |l| l.executions.to_string());
    let efficiency = line
        .and_then(|l| l.efficiency)
        .map_or_else(String::new, |e| format!("{:.0}%", e * 100.0));
    fixed(ui, 44.0, |ui| {
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.label(mono(executions));
        });
    });
    fixed(ui, 40.0, |ui| {
        let colour = line
            .and_then(|l| l.efficiency)
            .map(efficiency_colour)
            .unwrap_or(Color32::TRANSPARENT);
        let text = mono(efficiency)
            .color(Color32::BLACK)
            .background_color(colour);
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.label(text);
        });
    });
    // The divergent share of the branch on this line, as a bar; for a loop, the share of its
    // trips' lane slots left idle by lanes that had left.
    let (rect, bar) = ui.allocate_exact_size(vec2(30.0, 10.0), Sense::hover());
    if let Some(b) = branch {
        let (share, name) = match b.trip_slots(subgroup_size) {
            Some((ran, slots)) if slots > 0 => {
                (Some(1.0 - ran as f64 / slots as f64), "idle in its trips")
            }
            _ => (b.divergent_fraction, "divergent"),
        };
        let painter = ui.painter();
        painter.rect_filled(rect, 1.0, ui.visuals().extreme_bg_color);
        if let Some(f) = share {
            let mut filled = rect;
            filled.set_width(rect.width() * f as f32);
            painter.rect_filled(filled, 1.0, Color32::from_rgb(220, 120, 60));
        }
        let text = match share {
            Some(f) => format!("{name} {:.0}%", f * 100.0),
            None => format!("{name} —"),
        };
        bar.on_hover_text(&text)
            .widget_info(|| egui::WidgetInfo::labeled(egui::Role::ProgressIndicator, true, &text));
    }
    let mark = line.and_then(|l| Mismatch::of(l, branch));
    fixed(ui, 12.0, |ui| {
        if let Some(m) = mark {
            super::charts::marker(ui, egui_plot::MarkerShape::Diamond, MISMATCH)
                .on_hover_text(m.explain());
        }
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

/// Every figure of a line, the static verdict and why, and any disagreement.
fn line_tooltip(ui: &mut egui::Ui, row: &SourceRow<'_>, analysis: Option<&Analysis>) {
    let SourceRow {
        n,
        line,
        branch,
        cap,
        ..
    } = *row;
    ui.strong(format!("line {n} (click: record which lanes run it)"));
    if cap {
        ui.label("A loop here hit the loop cap: the counts are of the cut-short run.");
    }
    if let Some(l) = line {
        ui.label(format!("executions: {}", l.executions));
        if let (Some(lanes), true) = (l.active_lanes, l.executions > 0) {
            ui.label(format!(
                "mean active lanes: {:.2}",
                lanes as f64 / l.executions as f64
            ));
        }
        if let Some(e) = l.efficiency {
            ui.label(format!("efficiency: {:.1}%", e * 100.0));
        }
    }
    if let Some(figures) = branch.and_then(|b| b.loop_figures(row.subgroup_size)) {
        ui.label(format!(
            "the line's own figures are of the loop's entries; its trips: {figures}"
        ));
    } else if let Some(b) = branch {
        ui.label(format!(
            "{}: divergent in {} of {} executions{}",
            b.kind,
            b.divergent,
            b.executions,
            b.wasted_lane_slots
                .map_or_else(String::new, |w| format!(", {w} lane slots idle inside it"))
        ));
    }
    if let Some(v) = analysis.and_then(|a| a.line(n)) {
        let verdict = match v.subgroup {
            Verdict::Uniform => "uniform",
            Verdict::NonUniform => "non-uniform",
            Verdict::NotExecuted => "not executed",
        };
        ui.label(format!("static verdict (subgroup scope): {verdict}"));
        if let Some(reason) = v.subgroup_reason.as_deref().or(v.reason.as_deref()) {
            ui.weak(reason);
        }
    }
    if let Some(m) = line.and_then(|l| Mismatch::of(l, branch)) {
        ui.label(RichText::new(m.explain()).color(MISMATCH));
    }
}

/// What the kernel ran on: each buffer's fill and first values (from a run), or the fills a
/// document records.
fn inputs(ui: &mut egui::Ui, finished: &Finished) {
    let request = &finished.profile.request;
    let count = if finished.inputs.is_empty() {
        request.buffers.len()
    } else {
        finished.inputs.len()
    };
    if count == 0 {
        return;
    }
    egui::CollapsingHeader::new(format!("Inputs ({count}): what the kernel ran on"))
        .id_salt("profile_inputs")
        .default_open(true)
        .show(ui, |ui| {
            if finished.inputs.is_empty() {
                ui.weak("As the document records them (bindings not named had the default fill):");
                for buffer in &request.buffers {
                    ui.monospace(format!("--buffer {buffer}"));
                }
                return;
            }
            egui::Grid::new("profile_inputs_grid")
                .striped(true)
                .num_columns(3)
                .show(ui, |ui| {
                    for input in &finished.inputs {
                        ui.label(&input.label);
                        ui.label(&input.fill)
                            .on_hover_text(format!("{} bytes", input.bytes));
                        let more = if input.first.len() == crate::profile::fill::PREVIEW_VALUES {
                            ", …"
                        } else {
                            ""
                        };
                        ui.add(
                            egui::Label::new(
                                RichText::new(format!("{}{more}", input.first.join(", ")))
                                    .monospace(),
                            )
                            .truncate(),
                        );
                        ui.end_row();
                    }
                });
        });
}

/// The views to pick from, Save profile… and Pin; returns what was clicked.
fn toolbar(
    ui: &mut egui::Ui,
    view: &mut PaneView,
    lanes_line: Option<u32>,
    pinned: Option<&Profile>,
) -> Option<PaneAction> {
    let mut action = None;
    ui.horizontal(|ui| {
        ui.selectable_value(view, PaneView::Source, "Source");
        if let Some(line) = lanes_line {
            ui.selectable_value(view, PaneView::Lanes, format!("Lanes at line {line}"))
                .on_hover_text("The lane map and the dispatch map of the line you clicked");
        }
        if let Some(name) = pinned.map(profile_name) {
            ui.selectable_value(view, PaneView::SideBySide, "Side by side")
                .on_hover_text(format!("{name}, line by line beside this run"));
        }
        ui.separator();
        if ui
            .button("Save profile…")
            .on_hover_text("Write this profile as a document `divlab profile --json` would write")
            .clicked()
        {
            action = Some(PaneAction::SaveProfile);
        }
        match pinned.map(profile_name) {
            Some(name) => {
                if ui
                    .button("Unpin")
                    .on_hover_text(format!("Stop showing {name} side by side"))
                    .clicked()
                {
                    action = Some(PaneAction::Unpin);
                }
            }
            None => {
                if ui
                    .button("Pin for side by side")
                    .on_hover_text(
                        "Keep this profile, and show it line by line beside the next one you \
                         run or open (edit the kernel, Run, and see what the change did)",
                    )
                    .clicked()
                {
                    action = Some(PaneAction::Pin);
                }
            }
        }
    });
    action
}

/// What a profile goes by in the side-by-side view: `file on adapter`.
fn profile_name(profile: &Profile) -> String {
    format!("{} on {}", profile.kernel.file, profile.adapter.name)
}

/// Two profiles line by line: each line's executions and efficiency in `a` and in `b`, with
/// each one's own source text (lines pair by number).
pub fn side_by_side(ui: &mut egui::Ui, a: &Profile, b: &Profile) {
    let name = profile_name(a);
    let figures = |p: &Profile| -> BTreeMap<u32, (u64, Option<f64>)> {
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
    let cell = |ui: &mut egui::Ui, f: Option<&(u64, Option<f64>)>| match f {
        Some((executions, efficiency)) => {
            ui.monospace(executions.to_string());
            match efficiency {
                Some(e) => ui.label(
                    RichText::new(format!("{:.0}%", e * 100.0))
                        .monospace()
                        .color(Color32::BLACK)
                        .background_color(efficiency_colour(*e)),
                ),
                None => ui.label(""),
            };
        }
        None => {
            ui.label("");
            ui.label("");
        }
    };
    let headline = |p: &Profile| {
        p.control_flow_efficiency
            .map_or_else(|| "—".to_owned(), |e| format!("{:.1}%", e * 100.0))
    };
    ui.strong(format!("Side by side: {name} (pinned) | this run"));
    ui.label(format!(
        "control-flow efficiency: {} (pinned), {} (this run)",
        headline(a),
        headline(b)
    ));
    let lines: std::collections::BTreeSet<u32> = fa.keys().chain(fb.keys()).copied().collect();
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
                    for n in lines {
                        ui.monospace(n.to_string());
                        cell(ui, fa.get(&n));
                        ui.monospace(text(a, n));
                        cell(ui, fb.get(&n));
                        ui.monospace(text(b, n));
                        ui.end_row();
                    }
                });
        });
}
