//! The textures of a run as pictures: a thumbnail of each input texture and of each storage
//! texture the kernel wrote; a click opens it large, with the texel under the pointer, and
//! Save PNG… writes it.

use eframe::egui::{self, Color32, RichText, Sense, Stroke, vec2};

use crate::profile::run::TextureImage;

/// The thumbnails' height, in points.
const THUMBNAIL: f32 = 96.0;

/// `image`, or where an edge is longer than the renderer's largest texture (`max_side`), the
/// image shrunk by a whole factor to fit, each texel the average of the block it covers:
/// uploading a larger one ends the app (a 64 × 16,384 dispatch map did, on the H200's Collatz).
/// Drawn at its original size, a shrunk image reads as the same picture at a coarser grain.
pub fn within_texture_limit(image: egui::ColorImage, max_side: usize) -> egui::ColorImage {
    let [w, h] = image.size;
    let factor = shrink_factor([w, h], max_side);
    if factor <= 1 {
        return image;
    }
    let (sw, sh) = (w.div_ceil(factor), h.div_ceil(factor));
    let mut pixels = Vec::with_capacity(sw * sh);
    for by in 0..sh {
        for bx in 0..sw {
            let mut sum = [0u64; 4];
            let mut n = 0u64;
            for y in by * factor..((by + 1) * factor).min(h) {
                for x in bx * factor..((bx + 1) * factor).min(w) {
                    let c = image.pixels[y * w + x];
                    for (s, v) in sum.iter_mut().zip(c.to_array()) {
                        *s += u64::from(v);
                    }
                    n += 1;
                }
            }
            let [r, g, b, a] = sum.map(|s| (s / n) as u8);
            pixels.push(Color32::from_rgba_premultiplied(r, g, b, a));
        }
    }
    egui::ColorImage::new([sw, sh], pixels)
}

/// The whole factor an image of `size` shrinks by to fit `max_side` (1: it fits).
pub fn shrink_factor(size: [usize; 2], max_side: usize) -> usize {
    size[0].max(size[1]).div_ceil(max_side.max(1)).max(1)
}

/// A run's textures, uploaded once.
#[derive(Default)]
pub struct Pictures {
    images: Vec<TextureImage>,
    handles: Vec<Option<egui::TextureHandle>>,
    /// The picture shown large, by index.
    pub open: Option<usize>,
}

impl Pictures {
    /// The pictures of `images`.
    pub fn new(images: Vec<TextureImage>) -> Self {
        let handles = images.iter().map(|_| None).collect();
        Self {
            images,
            handles,
            open: None,
        }
    }

    /// The pictures, in binding order.
    pub fn images(&self) -> &[TextureImage] {
        &self.images
    }

    /// Picture `index` as a PNG file's bytes.
    pub fn png(&self, index: usize) -> Option<Vec<u8>> {
        self.images.get(index).map(TextureImage::png)
    }

    fn texture(&mut self, ctx: &egui::Context, index: usize) -> egui::TextureId {
        let image = &self.images[index];
        self.handles[index]
            .get_or_insert_with(|| {
                let [w, h] = image.size.map(|n| n as usize);
                let pixels = egui::ColorImage::from_rgba_unmultiplied([w, h], &image.rgba);
                let pixels = within_texture_limit(pixels, ctx.input(|i| i.max_texture_side));
                ctx.load_texture(
                    format!("picture {}", image.label),
                    pixels,
                    egui::TextureOptions::NEAREST,
                )
            })
            .id()
    }

    /// The row of thumbnails, and the picture opened large. Returns the index of a picture
    /// whose Save PNG… was clicked.
    pub fn ui(&mut self, ui: &mut egui::Ui) -> Option<usize> {
        if self.images.is_empty() {
            return None;
        }
        ui.horizontal_wrapped(|ui| {
            for index in 0..self.images.len() {
                let texture = self.texture(ui.ctx(), index);
                let image = &self.images[index];
                let [w, h] = image.size.map(|n| n as f32);
                let scale = THUMBNAIL / h.max(w / 2.0).max(1.0);
                ui.vertical(|ui| {
                    ui.label(RichText::new(title(image)).small());
                    let thumbnail = egui::Image::new((texture, vec2(w * scale, h * scale)))
                        .sense(Sense::click());
                    let name = format!("open {}", title(image));
                    let response = ui
                        .add(thumbnail)
                        .on_hover_text("Click to see it large, with the texel under the pointer");
                    response
                        .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &name));
                    if response.clicked() {
                        self.open = Some(index);
                    }
                });
            }
        });
        self.large(ui.ctx())
    }

    /// The picture opened large, in a window of its own.
    fn large(&mut self, ctx: &egui::Context) -> Option<usize> {
        let index = self.open?;
        let texture = self.texture(ctx, index);
        let image = &self.images[index];
        let mut open = true;
        let mut save = false;
        egui::Window::new(title(image))
            .id(egui::Id::unique("picture window"))
            .open(&mut open)
            .default_size(vec2(560.0, 600.0))
            .show(ctx, |ui| {
                ui.horizontal(|ui| {
                    save = ui
                        .button("Save PNG…")
                        .on_hover_text("Write this picture as a PNG file")
                        .clicked();
                    ui.weak(if image.written {
                        "as the kernel left it, after the counted run"
                    } else {
                        "as the kernel read it"
                    });
                });
                let [w, h] = image.size.map(|n| n as f32);
                let scale = ((ui.available_width() / w).min(512.0 / h)).max(0.01);
                let outline = ui.visuals().weak_text_color();
                let (rect, response) = paint_picture(ui, texture, image.size, scale, outline);
                let texel = response.hover_pos().map(|p| {
                    let x = (((p.x - rect.min.x) / scale) as u32).min(image.size[0] - 1);
                    let y = (((p.y - rect.min.y) / scale) as u32).min(image.size[1] - 1);
                    texel_text(image, x, y)
                });
                ui.monospace(texel.unwrap_or_else(|| "point at a texel to read it".to_owned()));
            });
        if !open {
            self.open = None;
        }
        save.then_some(index)
    }
}

/// Paints `texture` (`size` texels, `scale` points each) outlined in `outline`, sensing hover;
/// returns where it went.
pub fn paint_picture(
    ui: &mut egui::Ui,
    texture: egui::TextureId,
    size: [u32; 2],
    scale: f32,
    outline: Color32,
) -> (egui::Rect, egui::Response) {
    let [w, h] = size.map(|n| n as f32 * scale);
    let (rect, response) = ui.allocate_exact_size(vec2(w, h), Sense::hover());
    // On whole pixels: a picture drawn at a whole number of pixels a texel then keeps every
    // texel (nearest sampling from a half-pixel offset dropped some).
    let ppp = ui.ctx().pixels_per_point();
    let min = (rect.min.to_vec2() * ppp).round() / ppp;
    let rect = egui::Rect::from_min_size(min.to_pos2(), rect.size());
    let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
    ui.painter().image(texture, rect, uv, Color32::WHITE);
    ui.painter().rect_stroke(
        rect,
        0.0,
        Stroke::new(1.0, outline),
        egui::StrokeKind::Outside,
    );
    (rect, response)
}

/// `` `dst` (@group(0) @binding(1)), written · 64 × 64 ``.
fn title(image: &TextureImage) -> String {
    let [w, h] = image.size;
    format!(
        "{} · {} · {w} × {h}",
        image.label,
        if image.written { "written" } else { "input" }
    )
}

/// The texel at (x, y): its 8-bit RGBA, and as fractions of 255.
pub fn texel_text(image: &TextureImage, x: u32, y: u32) -> String {
    let i = (y as usize * image.size[0] as usize + x as usize) * 4;
    let Some(&[r, g, b, a]) = image.rgba.get(i..i + 4) else {
        return format!("texel ({x}, {y})");
    };
    let f = |v: u8| f32::from(v) / 255.0;
    format!(
        "texel ({x}, {y}): rgba8 {r} {g} {b} {a} = ({:.3}, {:.3}, {:.3}, {:.3})",
        f(r),
        f(g),
        f(b),
        f(a)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An image within the limit is left alone; a taller one is shrunk by a whole factor to
    /// fit, each texel the average of its block (the last block partial).
    #[test]
    fn an_image_past_the_largest_texture_is_averaged_down_to_fit() {
        let small = egui::ColorImage::new([2, 2], vec![Color32::RED; 4]);
        assert_eq!(within_texture_limit(small.clone(), 2), small);
        // 1 × 5: white, black, white, black, white; at most 2 a side: blocks of 3.
        let column = [255, 0, 255, 0, 255].map(Color32::from_gray).to_vec();
        let shrunk = within_texture_limit(egui::ColorImage::new([1, 5], column), 2);
        assert_eq!(shrunk.size, [1, 2]);
        assert_eq!(
            shrunk.pixels,
            [Color32::from_gray(170), Color32::from_gray(127)]
        );
    }
}
