//! Texture contents: the texels of a texture for its fill, channel by channel in the format's
//! own encoding, rows of texels one after another (layers or depth slices last), as
//! `Queue::write_texture` takes them; and back from a written texture to an RGBA8 image.
//!
//! Each fill gives every channel a number; the format then encodes it (normalized formats
//! clamp to their range, integers must fit):
//! - `zeros`: 0;
//! - `iota`: channel `k` in texel order holds `k`; in normalized formats `k ÷ channels`;
//! - `random[:SEED]`: floats and normalized channels in [0, 1), integers uniform over their
//!   width;
//! - `values:V1,...`: the leading channels, the rest 0;
//! - `gradient`: red = x ÷ (width − 1), green = y ÷ (height − 1), blue = z ÷ (depth − 1),
//!   alpha 1; integer formats take x, y, z and 1;
//! - `checker[:N]`: cells of N×N×N texels (8 by default), 1 in every channel of the odd cells
//!   and 0 in the even ones (alpha 1);
//! - `file:IMAGE`: the image's colours (normalized; integer formats take 0..255), and its size.

use super::Fill;
use crate::profile::error::{Error, Flag, Result};
use crate::profile::kernel::TextureBinding;

/// How one channel of a format is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Channel {
    Unorm(u8),
    Snorm(u8),
    Uint(u8),
    Sint(u8),
    Float(u8),
}

impl Channel {
    fn bytes(self) -> usize {
        let (Self::Unorm(bits)
        | Self::Snorm(bits)
        | Self::Uint(bits)
        | Self::Sint(bits)
        | Self::Float(bits)) = self;
        usize::from(bits / 8)
    }

    fn is_normalized(self) -> bool {
        matches!(self, Self::Unorm(_) | Self::Snorm(_))
    }

    fn is_integer(self) -> bool {
        matches!(self, Self::Uint(_) | Self::Sint(_))
    }
}

/// A format divlab can fill: its channels, their storage, and whether red and blue swap.
#[derive(Clone, Copy, Debug)]
pub struct TexelLayout {
    channel: Channel,
    channels: usize,
    bgra: bool,
}

impl TexelLayout {
    /// The layout of `format`, or `None` for the packed and compressed ones divlab does not
    /// fill texel by texel.
    pub fn of(format: wgpu::TextureFormat) -> Option<Self> {
        use Channel::*;
        use wgpu::TextureFormat as T;
        let (channel, channels) = match format {
            T::R8Unorm => (Unorm(8), 1),
            T::Rg8Unorm => (Unorm(8), 2),
            T::Rgba8Unorm | T::Rgba8UnormSrgb | T::Bgra8Unorm | T::Bgra8UnormSrgb => (Unorm(8), 4),
            T::R8Snorm => (Snorm(8), 1),
            T::Rg8Snorm => (Snorm(8), 2),
            T::Rgba8Snorm => (Snorm(8), 4),
            T::R8Uint => (Uint(8), 1),
            T::Rg8Uint => (Uint(8), 2),
            T::Rgba8Uint => (Uint(8), 4),
            T::R8Sint => (Sint(8), 1),
            T::Rg8Sint => (Sint(8), 2),
            T::Rgba8Sint => (Sint(8), 4),
            T::R16Unorm | T::Depth16Unorm => (Unorm(16), 1),
            T::Rg16Unorm => (Unorm(16), 2),
            T::Rgba16Unorm => (Unorm(16), 4),
            T::R16Snorm => (Snorm(16), 1),
            T::Rg16Snorm => (Snorm(16), 2),
            T::Rgba16Snorm => (Snorm(16), 4),
            T::R16Uint => (Uint(16), 1),
            T::Rg16Uint => (Uint(16), 2),
            T::Rgba16Uint => (Uint(16), 4),
            T::R16Sint => (Sint(16), 1),
            T::Rg16Sint => (Sint(16), 2),
            T::Rgba16Sint => (Sint(16), 4),
            T::R16Float => (Float(16), 1),
            T::Rg16Float => (Float(16), 2),
            T::Rgba16Float => (Float(16), 4),
            T::R32Uint => (Uint(32), 1),
            T::Rg32Uint => (Uint(32), 2),
            T::Rgba32Uint => (Uint(32), 4),
            T::R32Sint => (Sint(32), 1),
            T::Rg32Sint => (Sint(32), 2),
            T::Rgba32Sint => (Sint(32), 4),
            T::R32Float => (Float(32), 1),
            T::Rg32Float => (Float(32), 2),
            T::Rgba32Float => (Float(32), 4),
            T::R64Uint => (Uint(64), 1),
            _ => return None,
        };
        Some(Self {
            channel,
            channels,
            bgra: matches!(format, T::Bgra8Unorm | T::Bgra8UnormSrgb),
        })
    }

    /// Whether its channels hold integers (`r32uint`).
    pub fn is_integer(&self) -> bool {
        self.channel.is_integer()
    }

    /// Bytes of one texel.
    pub fn texel_bytes(&self) -> usize {
        self.channel.bytes() * self.channels
    }
}

/// A texture's extent: width, height, and depth or layers (a cube's six faces count as six
/// layers).
pub type Extent = [u32; 3];

/// Image data decoded for `file:IMAGE`: its size and its RGBA colours in [0, 1].
#[derive(Clone, Debug)]
pub struct Picture {
    /// Width and height.
    pub size: [u32; 2],
    /// Red, green, blue, alpha per pixel, rows top to bottom.
    pub rgba: Vec<[f32; 4]>,
}

impl Picture {
    /// Decodes the image at `path` (any format the `image` crate reads from its content), if
    /// neither side is over `max_side` (the adapter's largest texture), which is checked from
    /// the header before any pixel is decoded.
    pub fn open(path: &std::path::Path, max_side: u32) -> std::result::Result<Self, String> {
        // A FIFO would block the open, a device never end.
        crate::user_file::check_regular(path).map_err(|e| e.to_string())?;
        let reader = || -> std::result::Result<_, String> {
            image::ImageReader::open(path)
                .map_err(|e| e.to_string())?
                .with_guessed_format()
                .map_err(|e| e.to_string())
        };
        let header = reader()?;
        if header.format().is_none() {
            return Err("it is not an image divlab can read (PNG)".to_owned());
        }
        let (width, height) = header.into_dimensions().map_err(|e| e.to_string())?;
        if width.max(height) > max_side {
            return Err(format!(
                "it is {width}×{height} pixels, and this adapter's textures are at most \
                 {max_side} on a side (`max_texture_dimension_2d`); scale it down"
            ));
        }
        let decoded = reader()?
            .decode()
            .map_err(|e| e.to_string())?
            .into_rgba32f();
        Ok(Self {
            size: [decoded.width(), decoded.height()],
            rgba: decoded.pixels().map(|p| p.0).collect(),
        })
    }
}

/// The texels of a texture of `layout` and `extent` filled with `fill` (`picture`: the decoded
/// image of a `file:` fill, whose size the caller has checked) for `texture`, which messages
/// name and whose binding a `random` seed mixes in. With `cut`, a random integer channel keeps
/// that many of its lowest bits (a loop's bounds: a handful each).
pub fn texels(
    layout: TexelLayout,
    extent: Extent,
    fill: &Fill,
    picture: Option<&Picture>,
    texture: &TextureBinding,
    cut: Option<u32>,
) -> Result<Vec<u8>> {
    // Every bit, or the lowest `cut` (as `i64`, u64::MAX is -1: every bit too).
    let keep = cut.map_or(u64::MAX, |bits| (1u64 << bits) - 1);
    let seed_slot = u64::from(texture.group) << 32 | u64::from(texture.binding);
    let [w, h, d] = extent.map(|n| n as usize);
    let count = w * h * d;
    let channels = layout.channels;
    let mut out = Vec::with_capacity(count * layout.texel_bytes());
    let total = (count * channels) as f64;
    let mut rng = fastrand::Rng::with_seed(match fill {
        Fill::Random(seed) => seed ^ seed_slot.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        _ => 0,
    });
    let one_at = |span: usize, i: usize| {
        if span > 1 {
            i as f64 / (span - 1) as f64
        } else {
            0.0
        }
    };
    let ch = layout.channel;
    for t in 0..count {
        let (x, y, z) = (t % w, (t / w) % h, t / (w * h));
        for c in 0..channels {
            let k = t * channels + c;
            let value = match fill {
                Fill::Zeros => 0.0,
                Fill::Iota if ch.is_normalized() => k as f64 / total,
                Fill::Iota => k as f64,
                Fill::Random(_) => match ch {
                    Channel::Uint(bits) => ((rng.u64(..) >> (64 - u32::from(bits))) & keep) as f64,
                    Channel::Sint(bits) => {
                        ((rng.i64(..) >> (64 - u32::from(bits))) & keep as i64) as f64
                    }
                    _ => rng.f64(),
                },
                Fill::Values(vs) => vs.get(k).copied().unwrap_or(0.0),
                Fill::Gradient => match (c, ch.is_integer()) {
                    (3, _) => 1.0,
                    (_, true) => [x, y, z][c] as f64,
                    (_, false) => [one_at(w, x), one_at(h, y), one_at(d, z)][c],
                },
                Fill::Checker(n) => {
                    let n = *n as usize;
                    let odd = (x / n + y / n + z / n) % 2 == 1;
                    if c == 3 || odd { 1.0 } else { 0.0 }
                }
                Fill::File(_) => {
                    let picture = picture.expect("file: fills come decoded");
                    let v = f64::from(picture.rgba[t % picture.rgba.len()][c]);
                    if ch.is_integer() {
                        (v * 255.0).round()
                    } else {
                        v
                    }
                }
            };
            encode(ch, value, &mut out).map_err(|range| Error::BadFill {
                flag: Some(Flag::Texture),
                binding: Some(texture.slot()),
                why: format!(
                    "{}: channel {c} of texel ({x}, {y}, {z}) would hold {value}, which a \
                         {ch:?} channel cannot ({range}); give values that fit",
                    texture.label()
                ),
            })?;
        }
        if layout.bgra {
            let start = out.len() - 4;
            out.swap(start, start + 2);
        }
    }
    Ok(out)
}

/// Appends `v` in `channel`'s encoding, or says the range it must be in.
fn encode(channel: Channel, v: f64, out: &mut Vec<u8>) -> std::result::Result<(), String> {
    let int = |v: f64, lo: f64, hi: f64| {
        if v.fract() == 0.0 && (lo..=hi).contains(&v) {
            Ok(v)
        } else {
            Err(format!("whole numbers {lo} to {hi}"))
        }
    };
    match channel {
        Channel::Unorm(bits) => {
            let max = f64::from((1u32 << bits) - 1);
            push(out, (v.clamp(0.0, 1.0) * max).round() as u64, bits);
        }
        Channel::Snorm(bits) => {
            let max = f64::from((1u32 << (bits - 1)) - 1);
            push(out, (v.clamp(-1.0, 1.0) * max).round() as i64 as u64, bits);
        }
        Channel::Uint(bits) => {
            let hi = 2f64.powi(i32::from(bits)) - 1.0;
            push(out, int(v, 0.0, hi)? as u64, bits);
        }
        Channel::Sint(bits) => {
            let half = 2f64.powi(i32::from(bits) - 1);
            push(out, int(v, -half, half - 1.0)? as i64 as u64, bits);
        }
        Channel::Float(16) => push(out, u64::from(half::f16::from_f64(v).to_bits()), 16),
        Channel::Float(_) => push(out, u64::from((v as f32).to_bits()), 32),
    }
    Ok(())
}

fn push(out: &mut Vec<u8>, bits: u64, width: u8) {
    out.extend_from_slice(&bits.to_le_bytes()[..usize::from(width / 8)]);
}

/// The first layer (or depth slice) of texels `data` of `layout` and `extent`, read back from
/// the GPU, as an 8-bit RGBA image: normalized and float channels clamp [0, 1] to 0..255;
/// integer channels scale so that the largest value present is 255 (a 0/1 board shows black
/// and white); a one-channel format is grey, a two-channel one red and green.
pub fn to_rgba8(layout: TexelLayout, extent: Extent, data: &[u8]) -> Vec<u8> {
    let [w, h, _] = extent.map(|n| n as usize);
    let texel = layout.texel_bytes();
    let ch = layout.channel;
    let width = ch.bytes();
    let value = |t: usize, c: usize| -> f64 {
        let at = t * texel + c * width;
        let mut raw = [0u8; 8];
        raw[..width].copy_from_slice(&data[at..at + width]);
        let bits = u64::from_le_bytes(raw);
        let sign = |bits: u64, n: u8| {
            let shift = 64 - u32::from(n);
            ((bits << shift) as i64 >> shift) as f64
        };
        match ch {
            Channel::Unorm(n) => bits as f64 / ((1u64 << n) - 1) as f64,
            Channel::Snorm(n) => sign(bits, n) / ((1u64 << (n - 1)) - 1) as f64,
            Channel::Uint(_) => bits as f64,
            Channel::Sint(n) => sign(bits, n),
            Channel::Float(16) => half::f16::from_bits(bits as u16).to_f64(),
            Channel::Float(_) => f64::from(f32::from_bits(bits as u32)),
        }
    };
    let texels = w * h;
    let scale = if ch.is_integer() {
        let max = (0..texels * layout.channels)
            .map(|i| value(i / layout.channels, i % layout.channels))
            .fold(0.0f64, f64::max);
        if max > 0.0 { 1.0 / max } else { 1.0 }
    } else {
        1.0
    };
    let byte = |v: f64| ((v * scale).clamp(0.0, 1.0) * 255.0).round() as u8;
    let mut out = Vec::with_capacity(texels * 4);
    for t in 0..texels {
        let mut rgba = match layout.channels {
            1 => {
                let v = byte(value(t, 0));
                [v, v, v, 255]
            }
            2 => [byte(value(t, 0)), byte(value(t, 1)), 0, 255],
            _ => [0, 1, 2, 3].map(|c| byte(value(t, c))),
        };
        if layout.bgra {
            rgba.swap(0, 2);
        }
        out.extend_from_slice(&rgba);
    }
    out
}
