//! The lane grid: one row per subgroup, one cell per lane, at one record point.
//!
//! Cells are painted straight onto the painter, one rectangle shape per cell and no widget per
//! cell, so tens of thousands of lanes stay smooth; rows outside the clip rect are skipped.
//! Colours come from [`BallotColours`], built from every record, so what is on screen (the
//! scroll offset, the record point) never changes a ballot's colour.

use std::borrow::Cow;
use std::collections::HashMap;

use eframe::egui::{self, Color32, Rect, Sense, Stroke, Vec2, pos2, vec2};

use crate::report::LaneRecord;

/// Colour of a lane that never reached the record point (its ballot is all zero).
pub const INACTIVE: Color32 = Color32::from_gray(60);

/// The distinct record points of a set of records, ascending.
pub fn record_points(records: &[LaneRecord]) -> Vec<u32> {
    let mut points: Vec<u32> = records.iter().map(|r| r.point).collect();
    points.sort_unstable();
    points.dedup();
    points
}

/// A colour per ballot, given in order of first appearance over a whole record set (by point,
/// then subgroup, then lane), cycling through the palette.
#[derive(Clone, Debug, Default)]
pub struct BallotColours {
    colours: HashMap<[u32; 4], Color32>,
}

impl BallotColours {
    /// The colours of every ballot in `records`, at every point.
    pub fn new(records: &[LaneRecord]) -> Self {
        let mut ordered: Vec<&LaneRecord> = records.iter().collect();
        ordered.sort_by_key(|r| (r.point, r.subgroup));
        let mut colours = HashMap::new();
        for ballot in ordered.iter().flat_map(|r| &r.ballot) {
            if *ballot != [0; 4] {
                let next = super::charts::palette(colours.len());
                colours.entry(*ballot).or_insert(next);
            }
        }
        Self { colours }
    }

    /// The colour of `ballot`: [`INACTIVE`] for the empty ballot or one not in the records.
    pub fn colour_of(&self, ballot: [u32; 4]) -> Color32 {
        self.colours.get(&ballot).copied().unwrap_or(INACTIVE)
    }
}

/// The lane grid for the records of one point.
pub struct LaneGrid<'a> {
    rows: Vec<&'a LaneRecord>,
    colours: Cow<'a, BallotColours>,
    max_cell: f32,
}

impl<'a> LaneGrid<'a> {
    /// The records of `point`, one row per subgroup in subgroup order, coloured by
    /// [`BallotColours`] of all `records`.
    pub fn new(records: &'a [LaneRecord], point: u32) -> Self {
        Self::at_point(records, point, Cow::Owned(BallotColours::new(records)))
    }

    /// As [`Self::new`], with `colours` built for the same `records` once and kept by the caller.
    pub fn with_colours(records: &'a [LaneRecord], point: u32, colours: &'a BallotColours) -> Self {
        Self::at_point(records, point, Cow::Borrowed(colours))
    }

    fn at_point(records: &'a [LaneRecord], point: u32, colours: Cow<'a, BallotColours>) -> Self {
        let mut rows: Vec<&LaneRecord> = records.iter().filter(|r| r.point == point).collect();
        rows.sort_by_key(|r| r.subgroup);
        Self {
            rows,
            colours,
            max_cell: 18.0,
        }
    }

    /// The largest cell edge in points (cells shrink to fit the width, down to 2 points).
    pub fn max_cell(mut self, size: f32) -> Self {
        self.max_cell = size;
        self
    }

    /// How many cells the grid has.
    pub fn cell_count(&self) -> usize {
        self.rows.iter().map(|r| r.local_index.len()).sum()
    }

    /// Paints the grid and shows the hovered lane's ids, ballot and value in a tooltip.
    pub fn show(self, ui: &mut egui::Ui) -> egui::Response {
        let lanes = self
            .rows
            .iter()
            .map(|r| r.local_index.len())
            .max()
            .unwrap_or(0)
            .max(1);
        let label_w = 44.0;
        let cell = ((ui.available_width() - label_w) / lanes as f32).clamp(2.0, self.max_cell);
        let size = vec2(label_w + cell * lanes as f32, cell * self.rows.len() as f32);
        let (rect, response) = ui.allocate_exact_size(size, Sense::hover());
        let summary = format!(
            "lane grid: {} subgroups, {} cells",
            self.rows.len(),
            self.cell_count()
        );
        response
            .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, summary.clone()));
        if !ui.is_rect_visible(rect) {
            return response;
        }
        let painter = ui.painter_at(rect);
        let clip = ui.clip_rect();
        let gap = if cell >= 6.0 { 1.0 } else { 0.0 };
        let font = egui::FontId::monospace((cell * 0.8).clamp(6.0, 12.0));
        let text_colour = ui.visuals().text_color();
        for (row, record) in self.rows.iter().enumerate() {
            let y = rect.top() + cell * row as f32;
            if y + cell < clip.top() || y > clip.bottom() {
                continue;
            }
            if cell >= 8.0 {
                painter.text(
                    pos2(rect.left() + label_w - 4.0, y + cell / 2.0),
                    egui::Align2::RIGHT_CENTER,
                    format!("sg {}", record.subgroup),
                    font.clone(),
                    text_colour,
                );
            }
            for (lane, ballot) in record.ballot.iter().enumerate() {
                let colour = self.colours.colour_of(*ballot);
                let min = pos2(rect.left() + label_w + cell * lane as f32, y);
                let cell_rect = Rect::from_min_size(min, Vec2::splat(cell)).shrink(gap / 2.0);
                painter.rect_filled(cell_rect, 0.0, colour);
            }
        }
        if let Some(pos) = response.hover_pos() {
            let row = ((pos.y - rect.top()) / cell) as usize;
            let x = pos.x - rect.left() - label_w;
            if x >= 0.0
                && let Some(record) = self.rows.get(row)
                && let lane = (x / cell) as usize
                && lane < record.local_index.len()
            {
                let min = pos2(
                    rect.left() + label_w + cell * lane as f32,
                    rect.top() + cell * row as f32,
                );
                painter.rect_stroke(
                    Rect::from_min_size(min, Vec2::splat(cell)),
                    0.0,
                    Stroke::new(2.0, Color32::WHITE),
                    egui::StrokeKind::Inside,
                );
                let text = lane_text(record, lane);
                return response.on_hover_text_at_pointer(text);
            }
        }
        response
    }
}

/// What the tooltip says about one lane.
pub fn lane_text(record: &LaneRecord, lane: usize) -> String {
    let ballot = record.ballot.get(lane).copied().unwrap_or_default();
    let active = ballot != [0; 4];
    format!(
        "subgroup {}, subgroup_invocation_id {lane}\nlocal_invocation_index {}\n{}\nballot {:08x} {:08x} {:08x} {:08x}\nvalue {}",
        record.subgroup,
        record.local_index.get(lane).copied().unwrap_or_default(),
        if active {
            "active at this point"
        } else {
            "never reached this point"
        },
        ballot[3],
        ballot[2],
        ballot[1],
        ballot[0],
        record.value.get(lane).copied().unwrap_or_default(),
    )
}

/// Synthetic records for demos and the frame-time benchmark: `subgroups` rows of `lanes` lanes,
/// where lane i takes path `i % paths` and every seventh lane is inactive.
pub fn synthetic_records(subgroups: u32, lanes: u32, paths: u32) -> Vec<LaneRecord> {
    (0..subgroups)
        .map(|sg| {
            let path_of = |i: u32| i % paths.max(1);
            let active = |i: u32| !(sg + i).is_multiple_of(7);
            let ballot = |i: u32| {
                let mut words = [0u32; 4];
                if active(i) {
                    for j in (0..lanes).filter(|&j| active(j) && path_of(j) == path_of(i)) {
                        words[(j / 32) as usize % 4] |= 1 << (j % 32);
                    }
                }
                words
            };
            LaneRecord {
                point: 0,
                subgroup: sg,
                local_index: (0..lanes).map(|i| sg * lanes + i).collect(),
                ballot: (0..lanes).map(ballot).collect(),
                value: (0..lanes).map(path_of).collect(),
            }
        })
        .collect()
}
