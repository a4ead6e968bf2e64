//! The command-line forms for textures and samplers: `--texture NAME=FILL`, `--size
//! NAME=W[xH[xD]]`, `--format NAME=FORMAT`, `--sampler NAME=FILTER[,ADDRESS]` and `--save
//! NAME=FILE.png`, each a [`Named`] value. Like `grammar.rs`, the parsers are clap
//! `value_parser`s.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use super::grammar::parse_u64;
use super::{BindingRef, Fill};
use crate::profile::kernel::format_name;

/// `NAME=VALUE`: an option that sets something of one texture or sampler of the kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Named<T> {
    /// Which texture or sampler.
    pub target: BindingRef,
    /// What it sets.
    pub value: T,
}

/// A value of a `NAME=VALUE` option: parsed from the text after `=`, written back the same.
pub trait OptionValue: Sized + fmt::Display {
    /// The option's form, for messages: `NAME=FILL (e.g. ...)`.
    const FORM: &'static str;
    /// Parses the text after `=`, or says what is wrong with it (`whole` is the option).
    fn parse_value(value: &str, whole: &str) -> Result<Self, String>;
}

impl<T> Named<T> {
    /// The value the last of `options` gives the resource `name` at `@group(group)
    /// @binding(binding)` (a later option overrides an earlier one, as on a command line).
    pub fn last_for<'a>(
        options: &'a [Self],
        name: &str,
        group: u32,
        binding: u32,
    ) -> Option<&'a T> {
        options
            .iter()
            .rev()
            .find(|o| o.target.names(name, group, binding))
            .map(|o| &o.value)
    }
}

impl<T: OptionValue> FromStr for Named<T> {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (target, value) = s
            .split_once('=')
            .ok_or_else(|| format!("`{s}` is not {}", T::FORM))?;
        Ok(Self {
            target: target.parse()?,
            value: T::parse_value(value, s)?,
        })
    }
}

impl<T: OptionValue> fmt::Display for Named<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.target, self.value)
    }
}

/// `--texture NAME=FILL`: a texture's contents.
pub type TextureSpec = Named<Fill>;

/// A request's texture and sampler options, each list in command-line order (the last one
/// for a resource wins).
#[derive(Clone, Debug, Default)]
pub struct TextureOptions {
    /// `--texture NAME=FILL`.
    pub fills: Vec<TextureSpec>,
    /// `--size NAME=W[xH[xD]]`.
    pub sizes: Vec<SizeSpec>,
    /// `--format NAME=FORMAT`.
    pub formats: Vec<FormatSpec>,
    /// `--sampler NAME=FILTER[,ADDRESS]`.
    pub samplers: Vec<SamplerSpec>,
    /// `--save NAME=FILE.png`.
    pub saves: Vec<SaveSpec>,
}

impl TextureOptions {
    /// The option names [`Self::add`] takes, as the command line spells them.
    pub const OPTIONS: [&'static str; 5] = ["texture", "size", "format", "sampler", "save"];

    /// Adds one option written as on the command line, `--texture input=checker` (the dashes
    /// may be left out), or says what is wrong with it.
    pub fn add(&mut self, written: &str) -> Result<(), String> {
        let written = written.trim();
        let (option, value) = written
            .trim_start_matches('-')
            .split_once(char::is_whitespace)
            .map(|(o, v)| (o, v.trim()))
            .unwrap_or((written.trim_start_matches('-'), ""));
        match option {
            "texture" => self.fills.push(value.parse()?),
            "size" => self.sizes.push(value.parse()?),
            "format" => self.formats.push(value.parse()?),
            "sampler" => self.samplers.push(value.parse()?),
            "save" => self.saves.push(value.parse()?),
            _ => {
                return Err(format!(
                    "`{written}` is none of {}: write one per line, as `texture input=checker`",
                    Self::OPTIONS.join(", ")
                ));
            }
        }
        Ok(())
    }
}

impl OptionValue for Fill {
    const FORM: &'static str = "NAME=FILL (e.g. `input=checker`, `src=file:photo.png`)";

    fn parse_value(value: &str, _: &str) -> Result<Self, String> {
        value.parse()
    }
}

/// `--size NAME=W[xH[xD]]`: a texture's width, height and depth or layers.
pub type SizeSpec = Named<Size>;

/// The numbers of a `--size`, in order (missing ones 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Size(pub Vec<u32>);

impl OptionValue for Size {
    const FORM: &'static str = "NAME=W[xH[xD]], each ≥ 1 (e.g. `input=256x256`, `volume=32x32x32`)";

    fn parse_value(value: &str, whole: &str) -> Result<Self, String> {
        let dims: Option<Vec<u32>> = value
            .split(['x', 'X', '×'])
            .map(|n| {
                parse_u64(n)
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|&n| n >= 1)
            })
            .collect();
        match dims {
            Some(dims) if (1..=3).contains(&dims.len()) => Ok(Self(dims)),
            _ => Err(format!(
                "`{whole}`: `{value}` is not a size; use {}",
                Self::FORM
            )),
        }
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims: Vec<String> = self.0.iter().map(u32::to_string).collect();
        f.write_str(&dims.join("x"))
    }
}

/// `--format NAME=FORMAT`: the texel format of a sampled texture (a storage texture's format
/// is in its type).
pub type FormatSpec = Named<Format>;

/// A texture format named as WGSL names it (`rgba8unorm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format(pub wgpu::TextureFormat);

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

impl OptionValue for Format {
    const FORM: &'static str = "NAME=FORMAT (e.g. `input=rgba16float`)";

    fn parse_value(value: &str, whole: &str) -> Result<Self, String> {
        FORMATS
            .iter()
            .copied()
            .find(|&f| format_name(f) == value.trim().to_ascii_lowercase())
            .map(Self)
            .ok_or_else(|| {
                let names: Vec<String> = FORMATS.iter().map(|&f| format_name(f)).collect();
                format!(
                    "`{whole}`: `{value}` is not a texture format divlab fills; use one of {}",
                    names.join(", ")
                )
            })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_name(self.0))
    }
}

/// `--sampler NAME=FILTER[,ADDRESS]`.
pub type SamplerSpec = Named<SamplerMode>;

/// How a sampler reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerMode {
    /// `linear` or `nearest`.
    pub filter: wgpu::FilterMode,
    /// `clamp`, `repeat` or `mirror`.
    pub address: wgpu::AddressMode,
}

/// A sampler's settings without `--sampler`: linear, clamped to the edge.
pub const DEFAULT_FILTER: wgpu::FilterMode = wgpu::FilterMode::Linear;
/// See [`DEFAULT_FILTER`].
pub const DEFAULT_ADDRESS: wgpu::AddressMode = wgpu::AddressMode::ClampToEdge;

impl Default for SamplerMode {
    fn default() -> Self {
        Self {
            filter: DEFAULT_FILTER,
            address: DEFAULT_ADDRESS,
        }
    }
}

impl OptionValue for SamplerMode {
    const FORM: &'static str =
        "NAME=linear|nearest[,clamp|repeat|mirror] (e.g. `smp=nearest,repeat`)";

    fn parse_value(mode: &str, whole: &str) -> Result<Self, String> {
        let form = Self::FORM;
        let mut parts = mode.split(',').map(str::trim);
        let filter = match parts.next() {
            Some("linear") => wgpu::FilterMode::Linear,
            Some("nearest") => wgpu::FilterMode::Nearest,
            _ => {
                return Err(format!(
                    "`{whole}`: `{mode}` is not a sampler mode; use {form}"
                ));
            }
        };
        let address = match parts.next() {
            None | Some("clamp") => wgpu::AddressMode::ClampToEdge,
            Some("repeat") => wgpu::AddressMode::Repeat,
            Some("mirror") => wgpu::AddressMode::MirrorRepeat,
            Some(other) => {
                return Err(format!(
                    "`{whole}`: `{other}` is not an address mode; use {form}"
                ));
            }
        };
        if parts.next().is_some() {
            return Err(format!("`{whole}`: too many parts; use {form}"));
        }
        Ok(Self { filter, address })
    }
}

impl fmt::Display for SamplerMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let filter = match self.filter {
            wgpu::FilterMode::Linear => "linear",
            wgpu::FilterMode::Nearest => "nearest",
        };
        let address = match self.address {
            wgpu::AddressMode::Repeat => "repeat",
            wgpu::AddressMode::MirrorRepeat => "mirror",
            _ => "clamp",
        };
        write!(f, "{filter},{address}")
    }
}

/// `--save NAME=FILE.png`: where to write a storage texture after the run.
pub type SaveSpec = Named<SavePath>;

/// The PNG file of a `--save`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavePath(pub PathBuf);

impl OptionValue for SavePath {
    const FORM: &'static str = "NAME=FILE.png (e.g. `output=out.png`)";

    fn parse_value(path: &str, whole: &str) -> Result<Self, String> {
        if path.is_empty() {
            return Err(format!("`{whole}`: no file; use {}", Self::FORM));
        }
        Ok(Self(PathBuf::from(path)))
    }
}

impl fmt::Display for SavePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.display())
    }
}
