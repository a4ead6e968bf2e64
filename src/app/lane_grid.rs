//! The lane grid: one row per subgroup, one cell per lane, at one record point.
//!
//! The cells are one texture (one texel per lane, nearest filtering), uploaded once per record
//! point and kept in a [`LaneCache`], so a frame draws a few textured rectangles however many
//! lanes there are: a whole dispatch (a million lanes) stays smooth. Rows are split into
//! textures of [`CHUNK_ROWS`] to stay under every GPU's texture size limit. Cell borders, row
//! labels and the hovered lane are drawn only for the rows on screen. Ctrl+wheel zooms out to
//! the whole dispatch; the scroll area around the grid pans.
//!
//! Colours come from [`BallotColours`], built from every record, so what is on screen (the
//! scroll offset, the zoom, the record point) never changes a ballot's colour.

use std::collections::HashMap;

use eframe::egui::{self, Color32, Rect, Sense, Stroke, Vec2, pos2, vec2};

use crate::report::LaneRecord;

/// Colour of a lane that never reached the record point (its ballot is all zero).
pub const INACTIVE: Color32 = Color32::from_gray(60);

/// Rows per texture: 2048 texels, the least any renderer egui runs on takes (egui's own
/// default, and WebGL 2's), so an upload never ends the app (4096 did, under a 2048 limit).
pub const CHUNK_ROWS: usize = 2048;

/// The distinct record points of a set of records, ascending.
pub fn record_points(records: &[LaneRecord]) -> Vec<u32> {
    let mut points: Vec<u32> = records.iter().map(|r| r.point).collect();
    points.sort_unstable();
    points.dedup();
    points
}

/// How many ballot colours there are; more distinct ballots than this reuse them in turn.
pub const BALLOT_COLOURS: usize = 64;

/// The colour of the `index`-th distinct ballot. The 64 colours are chosen once, greedily, each
/// as far as possible (in RGB) from those before it, on a grid of colours that stay far from
/// [`INACTIVE`]'s grey and from the dark background; the first is the charts' blue. Any two
/// are at least 60 apart.
pub fn ballot_colour(index: usize) -> Color32 {
    static PALETTE: std::sync::OnceLock<Vec<Color32>> = std::sync::OnceLock::new();
    let palette = PALETTE.get_or_init(|| {
        let steps = (0..=255u8).step_by(17);
        let mut candidates: Vec<(Color32, f32)> = steps
            .clone()
            .flat_map(|r| steps.clone().map(move |g| (r, g)))
            .flat_map(|(r, g)| steps.clone().map(move |b| Color32::from_rgb(r, g, b)))
            .filter(|c| rgb_distance(*c, INACTIVE) >= 120.0 && c.r().max(c.g()).max(c.b()) >= 110)
            .map(|c| (c, f32::INFINITY))
            .collect();
        let mut chosen = vec![Color32::from_rgb(31, 119, 180)];
        while chosen.len() < BALLOT_COLOURS {
            let last = chosen[chosen.len() - 1];
            // Each candidate's distance to its nearest chosen colour, kept up to date.
            for (c, nearest) in &mut candidates {
                *nearest = nearest.min(rgb_distance(*c, last));
            }
            let (farthest, _) = candidates
                .iter()
                .copied()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .expect("candidates exist");
            chosen.push(farthest);
        }
        chosen
    });
    palette[index % palette.len()]
}

/// Euclidean distance of two colours' sRGB channels.
pub fn rgb_distance(a: Color32, b: Color32) -> f32 {
    let [ar, ag, ab, _] = a.to_array().map(f32::from);
    let [br, bg, bb, _] = b.to_array().map(f32::from);
    ((ar - br).powi(2) + (ag - bg).powi(2) + (ab - bb).powi(2)).sqrt()
}

/// A colour per ballot, given in order of first appearance over a whole record set (by point,
/// then subgroup, then lane).
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
                let next = ballot_colour(colours.len());
                colours.entry(*ballot).or_insert(next);
            }
        }
        Self { colours }
    }

    /// The colour of `ballot`: [`INACTIVE`] for the empty ballot or one not in the records.
    pub fn colour_of(&self, ballot: [u32; 4]) -> Color32 {
        self.colours.get(&ballot).copied().unwrap_or(INACTIVE)
    }

    /// How many distinct ballots have a colour.
    pub fn len(&self) -> usize {
        self.colours.len()
    }

    /// Whether no ballot has a colour.
    pub fn is_empty(&self) -> bool {
        self.colours.is_empty()
    }
}

/// What one record set's grids keep between frames: its colours, and per record point the
/// uploaded textures.
#[derive(Default)]
pub struct LaneCache {
    /// The ballot colours of the whole record set.
    pub colours: BallotColours,
    textures: HashMap<u32, Vec<egui::TextureHandle>>,
}

impl LaneCache {
    /// The cache of `records`: their colours now, textures when first drawn.
    pub fn new(records: &[LaneRecord]) -> Self {
        Self {
            colours: BallotColours::new(records),
            textures: HashMap::new(),
        }
    }
}

/// The lane grid for the records of one point.
pub struct LaneGrid<'a> {
    rows: Vec<&'a LaneRecord>,
    point: u32,
    /// Kept colours and textures, or colours of all the records for this frame only.
    cache: Result<&'a mut LaneCache, BallotColours>,
    max_cell: f32,
    /// Row labels in row order, in place of `sg N`.
    labels: Option<&'a [String]>,
}

impl<'a> LaneGrid<'a> {
    /// The records of `point`, one row per subgroup in subgroup order; colours and textures are
    /// built for this frame only.
    pub fn new(records: &'a [LaneRecord], point: u32) -> Self {
        Self::at_point(records, point, Err(BallotColours::new(records)))
    }

    /// As [`Self::new`], with colours and textures kept in `cache` (built for the same
    /// `records`), so a frame uploads nothing.
    pub fn cached(records: &'a [LaneRecord], point: u32, cache: &'a mut LaneCache) -> Self {
        Self::at_point(records, point, Ok(cache))
    }

    fn at_point(
        records: &'a [LaneRecord],
        point: u32,
        cache: Result<&'a mut LaneCache, BallotColours>,
    ) -> Self {
        let mut rows: Vec<&LaneRecord> = records.iter().filter(|r| r.point == point).collect();
        rows.sort_by_key(|r| r.subgroup);
        Self {
            rows,
            point,
            cache,
            max_cell: 18.0,
            labels: None,
        }
    }

    /// The largest cell edge in points (cells shrink to fit the width).
    pub fn max_cell(mut self, size: f32) -> Self {
        self.max_cell = size;
        self
    }

    /// Labels for the rows, in the order the rows show (records sorted by subgroup, stably),
    /// in place of `sg N`.
    pub fn row_labels(mut self, labels: &'a [String]) -> Self {
        self.labels = Some(labels);
        self
    }

    /// How many cells the grid has.
    pub fn cell_count(&self) -> usize {
        self.rows.iter().map(|r| r.local_index.len()).sum()
    }

    fn lanes(&self) -> usize {
        self.rows
            .iter()
            .map(|r| r.local_index.len())
            .max()
            .unwrap_or(0)
            .max(1)
    }

    /// The textures of the rows, [`CHUNK_ROWS`] rows each: one texel per lane, transparent
    /// where a row has fewer lanes.
    fn upload(&self, ctx: &egui::Context, colours: &BallotColours) -> Vec<egui::TextureHandle> {
        let lanes = self.lanes();
        self.rows
            .chunks(CHUNK_ROWS)
            .enumerate()
            .map(|(i, rows)| {
                let mut pixels = vec![Color32::TRANSPARENT; lanes * rows.len()];
                for (r, record) in rows.iter().enumerate() {
                    for (lane, ballot) in record.ballot.iter().enumerate() {
                        pixels[r * lanes + lane] = colours.colour_of(*ballot);
                    }
                }
                let image = egui::ColorImage::new([lanes, rows.len()], pixels);
                ctx.load_texture(
                    format!("lane grid {} {i}", self.point),
                    image,
                    egui::TextureOptions::NEAREST,
                )
            })
            .collect()
    }

    /// The textures of this record point: from the cache (uploaded once), or uploaded for
    /// this frame.
    fn textures(&mut self, ui: &egui::Ui, id: egui::Id) -> Vec<egui::TextureId> {
        let cache = std::mem::replace(&mut self.cache, Err(BallotColours::default()));
        match cache {
            Ok(cache) => {
                let upload = || self.upload(ui.ctx(), &cache.colours);
                let handles = cache.textures.entry(self.point).or_insert_with(upload);
                handles.iter().map(egui::TextureHandle::id).collect()
            }
            Err(colours) => {
                // Uploaded for this frame; kept in egui's memory until the next frame replaces
                // them, since a renderer may free a dropped texture before it draws the frame.
                let handles = std::sync::Arc::new(self.upload(ui.ctx(), &colours));
                let ids = handles.iter().map(egui::TextureHandle::id).collect();
                ui.data_mut(|d| d.insert_temp(id.with("textures"), handles));
                ids
            }
        }
    }

    /// Paints the grid and shows the hovered lane's ids, ballot and value in a tooltip.
    pub fn show(mut self, ui: &mut egui::Ui) -> egui::Response {
        let lanes = self.lanes();
        let label_w = self.labels.map_or(44.0, |labels| {
            8.0 + 7.0 * labels.iter().map(|l| l.chars().count()).max().unwrap_or(4) as f32
        });
        let id = ui.scope_id().with("lane grid zoom");
        let zoom: f32 = ui.data(|d| d.get_temp(id)).unwrap_or(1.0);
        let fit = ((ui.available_width() - label_w) / lanes as f32).min(self.max_cell);
        let cell = (fit * zoom).max(0.01);
        let size = vec2(label_w + cell * lanes as f32, cell * self.rows.len() as f32);
        let (rect, response) = ui.allocate_exact_size(size, Sense::hover());
        let summary = format!(
            "lane grid: {} subgroups, {} cells",
            self.rows.len(),
            self.cell_count()
        );
        response
            .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, summary.clone()));
        if response.hovered() {
            let delta = ui.input(|i| i.zoom_delta());
            if delta != 1.0 {
                ui.data_mut(|d| d.insert_temp(id, (zoom * delta).clamp(0.001, 1.0)));
                ui.ctx().request_repaint();
            }
        }
        if !ui.is_rect_visible(rect) {
            return response;
        }
        let textures = self.textures(ui, id);
        let painter = ui.painter_at(rect);
        let clip = ui.clip_rect().intersect(rect);
        let grid_left = rect.left() + label_w;
        let uv = Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));
        for (i, texture) in textures.into_iter().enumerate() {
            let first = i * CHUNK_ROWS;
            let rows = (self.rows.len() - first).min(CHUNK_ROWS);
            let top = rect.top() + cell * first as f32;
            let chunk = Rect::from_min_size(
                pos2(grid_left, top),
                vec2(cell * lanes as f32, cell * rows as f32),
            );
            if chunk.intersects(clip) {
                painter.image(texture, chunk, uv, Color32::WHITE);
            }
        }
        // Only the rows on screen get borders and labels.
        let visible = {
            let first = ((clip.top() - rect.top()) / cell).floor().max(0.0) as usize;
            let last = (((clip.bottom() - rect.top()) / cell).ceil() as usize).min(self.rows.len());
            first..last.max(first)
        };
        if cell >= 6.0 {
            let gap = Stroke::new(1.0, ui.visuals().panel_fill);
            let (y0, y1) = (
                rect.top() + cell * visible.start as f32,
                rect.top() + cell * visible.end as f32,
            );
            for lane in 0..=lanes {
                let x = grid_left + cell * lane as f32;
                painter.vline(x, y0..=y1, gap);
            }
            for row in visible.start..=visible.end {
                let y = rect.top() + cell * row as f32;
                painter.hline(grid_left..=grid_left + cell * lanes as f32, y, gap);
            }
        }
        if cell >= 8.0 {
            let font = egui::FontId::monospace((cell * 0.8).clamp(6.0, 12.0));
            let text_colour = ui.visuals().text_color();
            for row in visible.clone() {
                let y = rect.top() + cell * row as f32;
                painter.text(
                    pos2(grid_left - 4.0, y + cell / 2.0),
                    egui::Align2::RIGHT_CENTER,
                    match self.labels.and_then(|l| l.get(row)) {
                        Some(label) => label.clone(),
                        None => format!("sg {}", self.rows[row].subgroup),
                    },
                    font.clone(),
                    text_colour,
                );
            }
        }
        if let Some(pos) = response.hover_pos() {
            let row = ((pos.y - rect.top()) / cell) as usize;
            let x = pos.x - grid_left;
            if x >= 0.0
                && let Some(record) = self.rows.get(row)
                && let lane = (x / cell) as usize
                && lane < record.local_index.len()
            {
                let min = pos2(
                    grid_left + cell * lane as f32,
                    rect.top() + cell * row as f32,
                );
                painter.rect_stroke(
                    Rect::from_min_size(min, Vec2::splat(cell.max(3.0))),
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

/// What the tooltip says about one lane (its value only where the records hold values).
pub fn lane_text(record: &LaneRecord, lane: usize) -> String {
    let ballot = record.ballot.get(lane).copied().unwrap_or_default();
    let active = ballot != [0; 4];
    let mut text = format!(
        "subgroup {}, subgroup_invocation_id {lane}\nlocal_invocation_index {}\n{}\nballot {:08x} {:08x} {:08x} {:08x}",
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
    );
    if let Some(value) = record.value.get(lane) {
        text += &format!("\nvalue {value}");
    }
    text
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two colours a reader tells apart: at least this far apart in RGB.
    const APART: f32 = 60.0;

    fn distance(a: Color32, b: Color32) -> f32 {
        rgb_distance(a, b)
    }

    #[test]
    fn up_to_64_distinct_ballots_get_distinct_colours_unlike_the_inactive_grey() {
        // 64 distinct ballots: one lane each, in four words.
        let records: Vec<LaneRecord> = (0..64u32)
            .map(|i| {
                let mut ballot = [0u32; 4];
                ballot[(i / 32) as usize] = 1 << (i % 32);
                LaneRecord {
                    point: 0,
                    subgroup: i,
                    local_index: vec![i],
                    ballot: vec![ballot],
                    value: vec![0],
                }
            })
            .collect();
        let colours = BallotColours::new(&records);
        assert_eq!(colours.len(), 64);
        let painted: Vec<Color32> = records
            .iter()
            .map(|r| colours.colour_of(r.ballot[0]))
            .collect();
        for (i, a) in painted.iter().enumerate() {
            assert!(
                distance(*a, INACTIVE) >= 2.0 * APART,
                "ballot {i}'s {a:?} looks like the grey of an inactive lane"
            );
            for (j, b) in painted.iter().enumerate().skip(i + 1) {
                assert!(
                    distance(*a, *b) >= APART,
                    "ballots {i} and {j} are painted alike: {a:?}, {b:?}"
                );
            }
        }
    }
}
