//! Drawing the dispatch map: its cells as a texture (outlined by subgroup, over a picture where
//! asked), fitted to whole pixels per texel, with the heading, the legend and the hover text.

use eframe::egui::{self, Color32, Sense, vec2};

use super::{DispatchMap, NONE, Rows};
use crate::app::profile_view::gutter::efficiency_colour;
use crate::profile::run::TextureImage;

/// A cell whose subgroup never reached the line (or was not recorded).
pub const NOT_REACHED: Color32 = Color32::from_gray(70);

/// The outline between two subgroups.
pub const OUTLINE: Color32 = Color32::from_gray(15);

/// The largest edge, in texels, of a slice's texture: cells get as many texels as fit.
const MAX_TEXELS: u32 = 2048;

/// Texels per cell from which the subgroups' outlines are drawn.
const MIN_OUTLINED_CELL: u32 = 4;

impl DispatchMap {
    /// The colour of the invocation at `at`: green where it ran the line each time its
    /// subgroup did, red where never, amber between; grey where its subgroup never reached it;
    /// nothing where no invocation is drawn (past the last of folded rows).
    fn colour(&self, at: [u32; 3]) -> Color32 {
        if self.global_id(at).is_none() {
            return Color32::TRANSPARENT;
        }
        let cell = self.cells[self.index(at).expect("inside the dispatch")];
        if cell.subgroup == NONE {
            return NOT_REACHED;
        }
        let executions = self.subgroups[cell.subgroup as usize].executions.max(1);
        efficiency_colour(f64::from(cell.ran) / f64::from(executions))
    }

    /// Texels per cell in a slice's texture, where nothing else decides.
    pub fn texels_per_cell(&self) -> u32 {
        (1024 / self.size[0].max(self.size[1])).clamp(1, 16)
    }

    /// For cells of at most `cell_px` physical pixels: the texels per cell of the texture,
    /// and the cell's drawn size in pixels, a whole multiple of them. Drawn so, nearest
    /// sampling keeps every texel, so every outline shows at any scale (a texture scaled by a
    /// fraction drops some texel columns: some subgroups lost their outlines). Below one pixel
    /// a cell is one texel, scaled down, and cells that small carry no outlines anyway.
    pub fn fit(&self, cell_px: f32) -> (u32, f32) {
        let most = (MAX_TEXELS / self.size[0].max(self.size[1])).max(1);
        if cell_px < 1.0 {
            return (1, cell_px.max(0.05));
        }
        let k = (cell_px.floor() as u32).clamp(1, most);
        let times = (cell_px / k as f32).floor().max(1.0);
        (k, k as f32 * times)
    }

    /// Slice `z` as an image: each cell a square of [`Self::texels_per_cell`] texels, outlined
    /// where its neighbour belongs to another subgroup, blended over `under` (RGBA rows of
    /// the dispatch's x × y, top to bottom) where given.
    pub fn image(&self, z: u32, under: Option<&[u8]>) -> egui::ColorImage {
        self.image_with(z, under, self.texels_per_cell())
    }

    /// As [`Self::image`], with `k` texels per cell.
    pub fn image_with(&self, z: u32, under: Option<&[u8]>, k: u32) -> egui::ColorImage {
        let [sx, sy, _] = self.size;
        let (w, h) = ((sx * k) as usize, (sy * k) as usize);
        let mut pixels = vec![Color32::TRANSPARENT; w * h];
        let outlined = k >= MIN_OUTLINED_CELL;
        let group = |x: i64, y: i64| -> u32 {
            if x < 0 || y < 0 || x >= i64::from(sx) || y >= i64::from(sy) {
                return NONE;
            }
            self.cells[self.index([x as u32, y as u32, z]).expect("inside")].subgroup
        };
        for y in 0..sy {
            for x in 0..sx {
                let mut colour = self.colour([x, y, z]);
                if let Some(under) = under {
                    let i = (y as usize * sx as usize + x as usize) * 4;
                    if let Some(t) = under.get(i..i + 3) {
                        colour = blend(Color32::from_rgb(t[0], t[1], t[2]), colour);
                    }
                }
                let own = group(i64::from(x), i64::from(y));
                let differs = |dx: i64, dy: i64| {
                    outlined && own != NONE && group(i64::from(x) + dx, i64::from(y) + dy) != own
                };
                let (left, right, up, down) =
                    (differs(-1, 0), differs(1, 0), differs(0, -1), differs(0, 1));
                for ty in 0..k {
                    for tx in 0..k {
                        let edge = (left && tx == 0)
                            || (right && tx == k - 1)
                            || (up && ty == 0)
                            || (down && ty == k - 1);
                        let p = (y * k + ty) as usize * w + (x * k + tx) as usize;
                        pixels[p] = if edge { OUTLINE } else { colour };
                    }
                }
            }
        }
        egui::ColorImage::new([w, h], pixels)
    }

    /// The heading, the z slider, the overlay choice (those of the run's `pictures` of the
    /// dispatch's x × y size, where the map is laid out by global id, not in rows) and the map.
    pub fn ui(&mut self, ui: &mut egui::Ui, pictures: &[TextureImage]) {
        let [sx, sy, sz] = self.size;
        ui.strong(if let Some(rows) = self.rows {
            let Rows {
                workgroups,
                width,
                columns,
                per_column,
            } = rows;
            let folded = if columns > 1 {
                format!(" in {columns} columns of {per_column}, down then across")
            } else {
                String::new()
            };
            format!(
                "Dispatch map of line {}: {workgroups} workgroups of {width} invocations, a row \
                 each{folded}",
                self.line
            )
        } else {
            format!(
                "Dispatch map of line {}: {sx} × {sy}{} invocations",
                self.line,
                if sz > 1 {
                    format!(" × {sz}")
                } else {
                    String::new()
                }
            )
        });
        legend(ui);
        if self.truncated {
            ui.weak("The records ran out before the dispatch did: grey also marks subgroups not recorded.");
        }
        if let Some(warning) = &self.off_linear {
            ui.colored_label(ui.visuals().warn_fg_color, warning);
        }
        let max_side = ui.ctx().input(|i| i.max_texture_side);
        let shrink = crate::app::pictures::shrink_factor([sx, sy].map(|n| n as usize), max_side);
        if shrink > 1 {
            ui.weak(format!(
                "More cells than the largest texture holds ({max_side} a side): each texel \
                 averages {shrink} × {shrink} invocations. Hover for any one of them."
            ));
        }
        ui.horizontal(|ui| {
            if sz > 1 {
                ui.add(egui::Slider::new(&mut self.z, 0..=sz - 1).text("z"));
            }
            let fitting: Vec<(usize, &str)> = pictures
                .iter()
                .enumerate()
                .filter(|(_, p)| self.rows.is_none() && p.size == [sx, sy])
                .map(|(i, p)| (i, p.name.as_str()))
                .collect();
            if !fitting.is_empty() {
                let shown = self
                    .overlay
                    .and_then(|i| fitting.iter().find(|(j, _)| *j == i))
                    .map_or("none", |(_, n)| n);
                egui::ComboBox::from_label("over the texture")
                    .selected_text(shown)
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut self.overlay, None, "none");
                        for (i, name) in &fitting {
                            ui.selectable_value(&mut self.overlay, Some(*i), *name);
                        }
                    });
            }
        });
        let under = self
            .overlay
            .and_then(|i| pictures.get(i))
            .map(|p| p.rgba.as_slice());
        let height = (ui.available_height() - 8.0).max(160.0);
        let fits = (ui.available_width() / sx as f32).min(height / sy as f32);
        let ppp = ui.ctx().pixels_per_point();
        let (k, cell_px) = self.fit(fits * ppp);
        let scale = cell_px / ppp;
        let key = (self.z, self.overlay, k);
        if self.texture.as_ref().is_none_or(|(shown, _)| *shown != key) {
            let image = self.image_with(self.z, under, k);
            let image = crate::app::pictures::within_texture_limit(image, max_side);
            let handle = ui.ctx().load_texture(
                format!("dispatch map {}", self.line),
                image,
                egui::TextureOptions::NEAREST,
            );
            self.texture = Some((key, handle));
        }
        let texture = self.texture.as_ref().expect("made above").1.id();
        let (rect, response) =
            crate::app::pictures::paint_picture(ui, texture, [sx, sy], scale, OUTLINE);
        let name = format!("dispatch map of line {}", self.line);
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &name));
        if let Some(pointer) = response.hover_pos() {
            let x = (((pointer.x - rect.min.x) / scale) as u32).min(sx - 1);
            let y = (((pointer.y - rect.min.y) / scale) as u32).min(sy - 1);
            let text = self.describe([x, y, self.z]);
            response.on_hover_text_at_pointer(text);
        }
    }
}

/// The key to the map's colours: the scale it paints, from red (the invocation's subgroup ran
/// the line without it every time) through amber to green (with it every time), and grey.
fn legend(ui: &mut egui::Ui) {
    ui.horizontal_wrapped(|ui| {
        ui.label("share of its subgroup's executions of the line the invocation ran in:");
        ui.label("0%");
        let (rect, _) = ui.allocate_exact_size(vec2(120.0, 12.0), Sense::hover());
        let steps = 24;
        for i in 0..steps {
            let x0 = rect.min.x + rect.width() * i as f32 / steps as f32;
            let x1 = rect.min.x + rect.width() * (i + 1) as f32 / steps as f32;
            let share = f64::from(i) / f64::from(steps - 1);
            ui.painter().rect_filled(
                egui::Rect::from_min_max(egui::pos2(x0, rect.min.y), egui::pos2(x1, rect.max.y)),
                0.0,
                efficiency_colour(share),
            );
        }
        ui.label("100%");
        let (rect, _) = ui.allocate_exact_size(vec2(12.0, 12.0), Sense::hover());
        ui.painter().rect_filled(rect, 2.0, NOT_REACHED);
        ui.label("its subgroup never ran the line");
    });
    ui.weak(
        "Green: it ran the line each time its subgroup did; red: its subgroup ran it without \
         it; between: in some of the subgroup's trips (a loop). Outlines: subgroups.",
    );
}

/// `over` laid at half strength on `under`.
fn blend(under: Color32, over: Color32) -> Color32 {
    let mix = |a: u8, b: u8| ((u16::from(a) + u16::from(b)) / 2) as u8;
    Color32::from_rgb(
        mix(under.r(), over.r()),
        mix(under.g(), over.g()),
        mix(under.b(), over.b()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::dispatch_map::tests::{record, shape};

    /// Drawn at any size, a cell is a whole number of pixels per texel: every texel, and so
    /// every outline, reaches the screen; cells as large as the room allows, within a pixel
    /// of it where the texture can be that fine.
    #[test]
    fn a_cell_is_drawn_at_whole_pixels_per_texel_at_any_size() {
        let shape = shape([16, 1, 1], [4, 1, 1], 8);
        let map = DispatchMap::from_records(3, shape, &[record(0, 0, 0xff)], 1).unwrap();
        for tenth in 10..400 {
            let room = tenth as f32 / 10.0;
            let (k, px) = map.fit(room);
            assert!(px <= room + 1e-4, "{room}: drawn at {px}");
            assert_eq!(px % k as f32, 0.0, "{room}: {k} texels in {px} pixels");
            assert!(
                room - px < 1.0 || k == MAX_TEXELS / 16,
                "{room}: {px} wastes room"
            );
            if room >= MIN_OUTLINED_CELL as f32 {
                assert!(k >= MIN_OUTLINED_CELL, "{room}: too few texels to outline");
            }
        }
        assert_eq!(map.fit(0.5), (1, 0.5));
    }
}
