//! What a profile hands back besides the document: the buffers' inputs and the textures'
//! pictures, plain data that the resources and the report both make or read.

/// A buffer's or texture's contents as the kernel started: its fill, and a buffer's first
/// values.
#[derive(Clone, Debug, PartialEq)]
pub struct InputPreview {
    /// `` `name` (@group(G) @binding(B)) ``, or `` `name` (var<immediate>) ``.
    pub label: String,
    /// Its fill, as `--buffer` writes it, and whether it was the default.
    pub fill: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its first scalars in layout order (at most [`crate::profile::fill::PREVIEW_VALUES`]);
    /// none for a texture.
    pub first: Vec<String>,
}

/// Layer 0 of a texture after the counted run: what the kernel wrote, or its input where it
/// only reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureImage {
    /// The variable's name.
    pub name: String,
    /// `` `name` (@group(G) @binding(B)) ``.
    pub label: String,
    /// Whether the kernel can write it (a `write` or `read_write` storage texture).
    pub written: bool,
    /// Width and height.
    pub size: [u32; 2],
    /// 8-bit RGBA, rows top to bottom (other formats converted as `--save` converts them).
    pub rgba: Vec<u8>,
}

impl TextureImage {
    /// The picture as a PNG file's bytes, as `--save` writes it.
    pub fn png(&self) -> Vec<u8> {
        png(self.size, &self.rgba)
    }
}

/// `size` texels of 8-bit RGBA, rows top to bottom, as a PNG file's bytes.
pub(super) fn png([w, h]: [u32; 2], rgba: &[u8]) -> Vec<u8> {
    let mut png = Vec::new();
    image::RgbaImage::from_raw(w, h, rgba.to_vec())
        .expect("w × h RGBA texels")
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .expect("PNG encodes into memory");
    png
}
