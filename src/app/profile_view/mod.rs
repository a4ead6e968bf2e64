//! A profile painted onto its source, as egui's demo app keeps its panels: the pane and its
//! toolbar here, and each panel a struct or function in its own file. The pane shows, by the
//! view picked in the toolbar, the summary and inputs over the branches ranked by wasted lane
//! slots ([`summary`]) and the annotated source with its gutter ([`gutter`]) and its tooltips
//! ([`tooltip`]); the lanes recorded at a line ([`lane_map`]) beside the whole dispatch
//! ([`dispatch_map`]); or a pinned profile beside this one ([`side_by_side`]).
//!
//! The panels import nothing from this file, only from each other, one way: the gutter from the
//! tooltip, and the dispatch map and the side-by-side view the gutter's efficiency colour. So
//! the modules form a tree.

mod branches;
pub mod dispatch_map;
#[cfg(test)]
pub(crate) mod fixture;
mod gutter;
mod lane_map;
mod side_by_side;
mod summary;
mod tooltip;

use eframe::egui::{self, Color32, RichText, vec2};

use crate::app::pictures::Pictures;
use crate::profile::report::Profile;
use crate::profile::run::Finished;
use crate::uniformity::Analysis;
use dispatch_map::DispatchMap;
use gutter::Gutter;
pub use lane_map::LaneMap;
pub use side_by_side::{Relation, relation};
use side_by_side::{profile_name, side_by_side};

/// The share of the pane the area above the source takes at most with its sections folded: the
/// source's rows come first.
pub const FOLDED_SHARE: f32 = 0.3;

/// The share it takes at most with the notes or inputs opened: read, they were squeezed into
/// the third (two or three notes in sight at 1280 × 800), and the source keeps the rest.
pub const OPENED_SHARE: f32 = 0.55;

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
        let pinned = pinned.map(|p| (p, relation(p, &profile.kernel.file, self.source)));
        let mut action = toolbar(ui, view, lanes.as_ref().map(|l| l.line), pinned);
        match *view {
            PaneView::Lanes if lanes.is_some() => {
                lanes_view(ui, lanes.expect("checked"), dispatch_map, pictures);
                return action;
            }
            PaneView::SideBySide if pinned.is_some() => {
                side_by_side(ui, pinned.expect("checked").0, profile);
                return action;
            }
            _ => *view = PaneView::Source,
        }
        // Above the source, scrolled within at most a third of the pane: the figures, and
        // the notes, inputs and pictures (folded until opened). Opened, the notes or inputs
        // take up to [`OPENED_SHARE`] of the pane (as they were at the last frame).
        let opened_id = ui.make_persistent_id("profile_pane_top_opened");
        let opened = ui.data(|d| d.get_temp::<bool>(opened_id)).unwrap_or(false);
        let share = if opened { OPENED_SHARE } else { FOLDED_SHARE };
        let top = (ui.available_height() * share).max(80.0);
        egui::ScrollArea::vertical()
            .id_salt("profile_pane_top")
            .max_height(top)
            .auto_shrink([false, true])
            .show(ui, |ui| {
                let notes = summary::summary(ui, profile);
                let inputs = summary::inputs(ui, self.finished);
                ui.data_mut(|d| d.insert_temp(opened_id, notes || inputs));
                if let Some(index) = pictures.ui(ui) {
                    action = Some(PaneAction::SavePicture(index));
                }
            });
        // Outside that area, so its eight rows are never squeezed by what is above.
        egui::CollapsingHeader::new("Branches and loops, by wasted lane slots")
            .default_open(true)
            .show(ui, |ui| branches::branch_table(ui, profile, jump));
        // The legend says a click on a line records its lanes.
        let gutter = Gutter {
            source: self.source,
            profile,
            analysis: self.analysis,
        };
        gutter.ui(ui, jump).map(PaneAction::RecordLanes).or(action)
    }
}

/// The lane map, with the dispatch map beside it where there is one.
fn lanes_view(
    ui: &mut egui::Ui,
    lanes: &mut LaneMap,
    dispatch_map: Option<&mut DispatchMap>,
    pictures: &Pictures,
) {
    let Some(map) = dispatch_map else {
        lanes.ui(ui);
        return;
    };
    // The lane map as wide as its labels and cells need (at most half); the dispatch map
    // takes the rest.
    let height = ui.available_height();
    let left = lanes
        .wanted_width()
        .max(240.0)
        .min(ui.available_width() * 0.5);
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

/// The views to pick from, Save profile… and Pin; returns what was clicked.
fn toolbar(
    ui: &mut egui::Ui,
    view: &mut PaneView,
    lanes_line: Option<u32>,
    pinned: Option<(&Profile, Relation)>,
) -> Option<PaneAction> {
    let mut action = None;
    ui.horizontal(|ui| {
        ui.selectable_value(view, PaneView::Source, "Source");
        if let Some(line) = lanes_line {
            ui.selectable_value(view, PaneView::Lanes, format!("Lanes at line {line}"))
                .on_hover_text("The lane map and the dispatch map of the line you clicked");
        }
        if let Some((pinned, relation)) = pinned {
            let name = profile_name(pinned);
            let (label, about) = if relation == Relation::Different {
                (
                    "Side by side (different kernels)",
                    format!("{name} is of another kernel: its lines pair with this run's by text"),
                )
            } else {
                (
                    "Side by side",
                    format!("{name}, line by line beside this run"),
                )
            };
            ui.selectable_value(view, PaneView::SideBySide, label)
                .on_hover_text(about);
        }
        ui.separator();
        if ui
            .button("Save profile…")
            .on_hover_text("Write this profile as a document `divlab profile --json` would write")
            .clicked()
        {
            action = Some(PaneAction::SaveProfile);
        }
        match pinned.map(|(p, _)| profile_name(p)) {
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
