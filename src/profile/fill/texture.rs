//! The command-line forms for textures and samplers: `--texture NAME=FILL`, `--size
//! NAME=W[xH[xD]]`, `--format NAME=FORMAT`, `--sampler NAME=FILTER[,ADDRESS]` and `--save
//! NAME=FILE.png`. Like `grammar.rs`, the parsers are clap `value_parser`s.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use super::grammar::parse_u64;
use super::{BindingRef, Fill};
use crate::profile::kernel::format_name;

/// `--texture NAME=FILL`: a texture's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureSpec {
    /// Which texture.
    pub target: BindingRef,
    /// What it holds.
    pub fill: Fill,
}

impl FromStr for TextureSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (target, fill) = split(s, "NAME=FILL (e.g. `input=checker`, `src=file:photo.png`)")?;
        Ok(Self {
            target: target.parse()?,
            fill: fill.parse()?,
        })
    }
}

/// `--size NAME=W[xH[xD]]`: a texture's width, height and depth or layers (missing ones 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeSpec {
    /// Which texture.
    pub target: BindingRef,
    /// The numbers given, in order.
    pub dims: Vec<u32>,
}

impl FromStr for SizeSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let form = "NAME=W[xH[xD]], each ≥ 1 (e.g. `input=256x256`, `volume=32x32x32`)";
        let (target, size) = split(s, form)?;
        let dims: Option<Vec<u32>> = size
            .split(['x', 'X', '×'])
            .map(|n| {
                parse_u64(n)
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|&n| n >= 1)
            })
            .collect();
        match dims {
            Some(dims) if (1..=3).contains(&dims.len()) => Ok(Self {
                target: target.parse()?,
                dims,
            }),
            _ => Err(format!("`{s}`: `{size}` is not a size; use {form}")),
        }
    }
}

/// `--format NAME=FORMAT`: the texel format of a sampled texture (a storage texture's format
/// is in its type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatSpec {
    /// Which texture.
    pub target: BindingRef,
    /// The format.
    pub format: wgpu::TextureFormat,
}

/// The formats `--format` takes: every one divlab fills texel by texel.
pub const FORMATS: &[wgpu::TextureFormat] = {
    use wgpu::TextureFormat as T;
    &[
        T::R8Unorm,
        T::Rg8Unorm,
        T::Rgba8Unorm,
        T::Rgba8UnormSrgb,
        T::Bgra8Unorm,
        T::R8Snorm,
        T::Rg8Snorm,
        T::Rgba8Snorm,
        T::R8Uint,
        T::Rg8Uint,
        T::Rgba8Uint,
        T::R8Sint,
        T::Rg8Sint,
        T::Rgba8Sint,
        T::R16Unorm,
        T::Rg16Unorm,
        T::Rgba16Unorm,
        T::R16Snorm,
        T::Rg16Snorm,
        T::Rgba16Snorm,
        T::R16Uint,
        T::Rg16Uint,
        T::Rgba16Uint,
        T::R16Sint,
        T::Rg16Sint,
        T::Rgba16Sint,
        T::R16Float,
        T::Rg16Float,
        T::Rgba16Float,
        T::R32Uint,
        T::Rg32Uint,
        T::Rgba32Uint,
        T::R32Sint,
        T::Rg32Sint,
        T::Rgba32Sint,
        T::R32Float,
        T::Rg32Float,
        T::Rgba32Float,
        T::Depth16Unorm,
    ]
};

impl FromStr for FormatSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (target, name) = split(s, "NAME=FORMAT (e.g. `input=rgba16float`)")?;
        let format = FORMATS
            .iter()
            .copied()
            .find(|&f| format_name(f) == name.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                let names: Vec<String> = FORMATS.iter().map(|&f| format_name(f)).collect();
                format!(
                    "`{s}`: `{name}` is not a texture format divlab fills; use one of {}",
                    names.join(", ")
                )
            })?;
        Ok(Self {
            target: target.parse()?,
            format,
        })
    }
}

/// `--sampler NAME=FILTER[,ADDRESS]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SamplerSpec {
    /// Which sampler.
    pub target: BindingRef,
    /// `linear` or `nearest`.
    pub filter: wgpu::FilterMode,
    /// `clamp`, `repeat` or `mirror`.
    pub address: wgpu::AddressMode,
}

/// A sampler's settings without `--sampler`: linear, clamped to the edge.
pub const DEFAULT_FILTER: wgpu::FilterMode = wgpu::FilterMode::Linear;
/// See [`DEFAULT_FILTER`].
pub const DEFAULT_ADDRESS: wgpu::AddressMode = wgpu::AddressMode::ClampToEdge;

impl FromStr for SamplerSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let form = "NAME=linear|nearest[,clamp|repeat|mirror] (e.g. `smp=nearest,repeat`)";
        let (target, mode) = split(s, form)?;
        let mut parts = mode.split(',').map(str::trim);
        let filter = match parts.next() {
            Some("linear") => wgpu::FilterMode::Linear,
            Some("nearest") => wgpu::FilterMode::Nearest,
            _ => return Err(format!("`{s}`: `{mode}` is not a sampler mode; use {form}")),
        };
        let address = match parts.next() {
            None | Some("clamp") => wgpu::AddressMode::ClampToEdge,
            Some("repeat") => wgpu::AddressMode::Repeat,
            Some("mirror") => wgpu::AddressMode::MirrorRepeat,
            Some(other) => {
                return Err(format!(
                    "`{s}`: `{other}` is not an address mode; use {form}"
                ));
            }
        };
        if parts.next().is_some() {
            return Err(format!("`{s}`: too many parts; use {form}"));
        }
        Ok(Self {
            target: target.parse()?,
            filter,
            address,
        })
    }
}

impl fmt::Display for SamplerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={}",
            self.target,
            sampler_mode(self.filter, self.address)
        )
    }
}

impl fmt::Display for TextureSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.target, self.fill)
    }
}

impl fmt::Display for SizeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims: Vec<String> = self.dims.iter().map(u32::to_string).collect();
        write!(f, "{}={}", self.target, dims.join("x"))
    }
}

impl fmt::Display for FormatSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.target, format_name(self.format))
    }
}

impl fmt::Display for SaveSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.target, self.path.display())
    }
}

/// `linear,clamp` and so on: how a sampler reads.
pub fn sampler_mode(filter: wgpu::FilterMode, address: wgpu::AddressMode) -> String {
    let filter = match filter {
        wgpu::FilterMode::Linear => "linear",
        wgpu::FilterMode::Nearest => "nearest",
    };
    let address = match address {
        wgpu::AddressMode::Repeat => "repeat",
        wgpu::AddressMode::MirrorRepeat => "mirror",
        _ => "clamp",
    };
    format!("{filter},{address}")
}

/// `--save NAME=FILE.png`: where to write a storage texture after the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaveSpec {
    /// Which texture.
    pub target: BindingRef,
    /// The PNG file.
    pub path: PathBuf,
}

impl FromStr for SaveSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (target, path) = split(s, "NAME=FILE.png (e.g. `output=out.png`)")?;
        if path.is_empty() {
            return Err(format!("`{s}`: no file; use NAME=FILE.png"));
        }
        Ok(Self {
            target: target.parse()?,
            path: PathBuf::from(path),
        })
    }
}

fn split<'a>(s: &'a str, form: &str) -> Result<(&'a str, &'a str), String> {
    s.split_once('=')
        .ok_or_else(|| format!("`{s}` is not {form}"))
}
