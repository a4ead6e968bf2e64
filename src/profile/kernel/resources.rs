//! The kernel's textures and samplers, read off naga's image and sampler types: what the host
//! must create for each one (dimension, sample type, storage format and access) and whether a
//! sampler filters it, which decides the formats it may have.

use std::fmt;

use naga::{ImageClass, ImageDimension, ScalarKind, StorageAccess, StorageFormat, TypeInner};

use crate::profile::Slot;

/// A texture binding of the kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureBinding {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The variable's name.
    pub name: String,
    /// 1-based line of its declaration.
    pub line: u32,
    /// Its dimension and whether it is arrayed.
    pub dim: TextureDim,
    /// Sampled, depth or storage.
    pub class: TextureClass,
    /// Whether the entry point samples it through a sampler (`textureSample*`): wgpu then
    /// binds it as a filterable float texture, so its format must be filterable.
    pub filtered: bool,
}

impl TextureBinding {
    /// `` `name` (@group(G) @binding(B)) ``, for messages.
    pub fn label(&self) -> String {
        format!(
            "`{}` (@group({}) @binding({}))",
            self.name, self.group, self.binding
        )
    }

    /// Its name, slot and line, for an error about it.
    pub fn slot(&self) -> Slot {
        slot(&self.name, self.group, self.binding, self.line)
    }

    /// Whether the kernel can write it (a `write` or `read_write` storage texture).
    pub fn is_written(&self) -> bool {
        matches!(
            self.class,
            TextureClass::Storage {
                access: TextureAccess::Write | TextureAccess::ReadWrite,
                ..
            }
        )
    }

    /// Whether the kernel can read what it writes here (a `read_write` storage texture): a
    /// timed run puts it back first, as a buffer that feeds back.
    pub fn feeds_back(&self) -> bool {
        matches!(
            self.class,
            TextureClass::Storage {
                access: TextureAccess::ReadWrite,
                ..
            }
        )
    }

    /// Whether it is multisampled.
    pub fn is_multisampled(&self) -> bool {
        matches!(
            self.class,
            TextureClass::Sampled {
                multisampled: true,
                ..
            } | TextureClass::Depth { multisampled: true }
        )
    }
}

/// A texture's dimension, as its WGSL type names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureDim {
    /// `texture_1d`.
    D1,
    /// `texture_2d` (and the multisampled and depth ones).
    D2,
    /// `texture_2d_array`.
    D2Array,
    /// `texture_3d`.
    D3,
    /// `texture_cube`.
    Cube,
    /// `texture_cube_array`.
    CubeArray,
}

impl TextureDim {
    /// The view dimension wgpu binds.
    pub fn view_dimension(self) -> wgpu::TextureViewDimension {
        match self {
            Self::D1 => wgpu::TextureViewDimension::D1,
            Self::D2 => wgpu::TextureViewDimension::D2,
            Self::D2Array => wgpu::TextureViewDimension::D2Array,
            Self::D3 => wgpu::TextureViewDimension::D3,
            Self::Cube => wgpu::TextureViewDimension::Cube,
            Self::CubeArray => wgpu::TextureViewDimension::CubeArray,
        }
    }

    /// The form `--size` takes for it.
    pub fn size_form(self) -> &'static str {
        match self {
            Self::D1 => "W",
            Self::D2 => "WxH",
            Self::D2Array => "WxHxLAYERS",
            Self::D3 => "WxHxD",
            Self::Cube => "W (a cube's faces are W×W)",
            Self::CubeArray => "WxCUBES (each cube's faces are W×W)",
        }
    }
}

impl fmt::Display for TextureDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::D1 => "1d",
            Self::D2 => "2d",
            Self::D2Array => "2d_array",
            Self::D3 => "3d",
            Self::Cube => "cube",
            Self::CubeArray => "cube_array",
        })
    }
}

/// What a texture holds and how the kernel reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureClass {
    /// `texture_*<T>` or `texture_multisampled_2d<T>`: read with `textureLoad`/`textureSample*`.
    Sampled {
        /// `T`: float, signed or unsigned integer texels.
        kind: SampleKind,
        /// `texture_multisampled_2d`.
        multisampled: bool,
    },
    /// `texture_depth_*`.
    Depth {
        /// `texture_depth_multisampled_2d`.
        multisampled: bool,
    },
    /// `texture_storage_*<format, access>`.
    Storage {
        /// Its texel format.
        format: wgpu::TextureFormat,
        /// `read`, `write` or `read_write`.
        access: TextureAccess,
    },
}

/// The texel type of a sampled texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleKind {
    /// `f32`.
    Float,
    /// `i32`.
    Sint,
    /// `u32`.
    Uint,
}

/// A storage texture's access mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureAccess {
    /// `read`.
    Read,
    /// `write`.
    Write,
    /// `read_write`.
    ReadWrite,
}

impl fmt::Display for TextureClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Sampled { kind, multisampled } => {
                let kind = match kind {
                    SampleKind::Float => "f32",
                    SampleKind::Sint => "i32",
                    SampleKind::Uint => "u32",
                };
                let ms = if multisampled { "multisampled " } else { "" };
                write!(f, "{ms}sampled<{kind}>")
            }
            Self::Depth { multisampled } => f.write_str(if multisampled {
                "multisampled depth"
            } else {
                "depth"
            }),
            Self::Storage { format, access } => {
                let access = match access {
                    TextureAccess::Read => "read",
                    TextureAccess::Write => "write",
                    TextureAccess::ReadWrite => "read_write",
                };
                write!(f, "storage<{}, {access}>", format_name(format))
            }
        }
    }
}

/// A sampler binding of the kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplerBinding {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The variable's name.
    pub name: String,
    /// 1-based line of its declaration.
    pub line: u32,
    /// `sampler_comparison`.
    pub comparison: bool,
}

impl SamplerBinding {
    /// Its name, slot and line, for an error about it.
    pub fn slot(&self) -> Slot {
        slot(&self.name, self.group, self.binding, self.line)
    }
}

/// A resource's [`Slot`], for an error about it.
pub(super) fn slot(name: &str, group: u32, binding: u32, line: u32) -> Slot {
    Slot {
        name: name.to_owned(),
        group,
        binding,
        line,
    }
}

/// A texture or a sampler.
pub(super) enum Handle {
    Texture(TextureBinding),
    Sampler(SamplerBinding),
}

/// The texture or sampler of type `ty` bound at `slot`, or what makes it unsupported.
/// `filtered`: whether the entry point samples it through a sampler.
pub(super) fn handle_binding(
    module: &naga::Module,
    ty: naga::Handle<naga::Type>,
    slot: &naga::ResourceBinding,
    name: &str,
    line: u32,
    filtered: bool,
) -> std::result::Result<Handle, &'static str> {
    let inner = &module.types[ty].inner;
    let (group, binding, name) = (slot.group, slot.binding, name.to_owned());
    if let TypeInner::Sampler { comparison } = *inner {
        return Ok(Handle::Sampler(SamplerBinding {
            group,
            binding,
            name,
            line,
            comparison,
        }));
    }
    if !matches!(inner, TypeInner::Image { .. }) {
        return Err(super::shape::handle_kind(inner));
    }
    let (dim, class) = texture_of(inner)?;
    Ok(Handle::Texture(TextureBinding {
        group,
        binding,
        name,
        line,
        dim,
        class,
        filtered,
    }))
}

/// The texture type `inner` (a `TypeInner::Image`) as divlab binds it, or what makes it
/// unsupported.
fn texture_of(inner: &TypeInner) -> std::result::Result<(TextureDim, TextureClass), &'static str> {
    let TypeInner::Image {
        dim,
        arrayed,
        class,
    } = *inner
    else {
        return Err("not a texture");
    };
    let dim = match (dim, arrayed) {
        (ImageDimension::D1, false) => TextureDim::D1,
        (ImageDimension::D2, false) => TextureDim::D2,
        (ImageDimension::D2, true) => TextureDim::D2Array,
        (ImageDimension::D3, false) => TextureDim::D3,
        (ImageDimension::Cube, false) => TextureDim::Cube,
        (ImageDimension::Cube, true) => TextureDim::CubeArray,
        (ImageDimension::D1 | ImageDimension::D3, true) => {
            return Err("an arrayed 1-D/3-D texture");
        }
    };
    let class = match class {
        ImageClass::Sampled { kind, multi } => TextureClass::Sampled {
            kind: match kind {
                ScalarKind::Float => SampleKind::Float,
                ScalarKind::Sint => SampleKind::Sint,
                ScalarKind::Uint => SampleKind::Uint,
                _ => return Err("a texture of an unusual texel type"),
            },
            multisampled: multi,
        },
        ImageClass::Depth { multi } => TextureClass::Depth {
            multisampled: multi,
        },
        ImageClass::Storage { format, access } => TextureClass::Storage {
            format: storage_format(format),
            access: match access {
                a if a == StorageAccess::LOAD => TextureAccess::Read,
                a if a == StorageAccess::STORE => TextureAccess::Write,
                a if a == StorageAccess::LOAD | StorageAccess::STORE => TextureAccess::ReadWrite,
                _ => return Err("an atomic storage texture"),
            },
        },
        ImageClass::External => {
            return Err("a `texture_external` (a video frame the host imports)");
        }
    };
    Ok((dim, class))
}

/// wgpu's format for a WGSL storage texel format.
fn storage_format(format: StorageFormat) -> wgpu::TextureFormat {
    use StorageFormat as S;
    use wgpu::TextureFormat as T;
    match format {
        S::R8Unorm => T::R8Unorm,
        S::R8Snorm => T::R8Snorm,
        S::R8Uint => T::R8Uint,
        S::R8Sint => T::R8Sint,
        S::R16Uint => T::R16Uint,
        S::R16Sint => T::R16Sint,
        S::R16Float => T::R16Float,
        S::Rg8Unorm => T::Rg8Unorm,
        S::Rg8Snorm => T::Rg8Snorm,
        S::Rg8Uint => T::Rg8Uint,
        S::Rg8Sint => T::Rg8Sint,
        S::R32Uint => T::R32Uint,
        S::R32Sint => T::R32Sint,
        S::R32Float => T::R32Float,
        S::Rg16Uint => T::Rg16Uint,
        S::Rg16Sint => T::Rg16Sint,
        S::Rg16Float => T::Rg16Float,
        S::Rgba8Unorm => T::Rgba8Unorm,
        S::Rgba8Snorm => T::Rgba8Snorm,
        S::Rgba8Uint => T::Rgba8Uint,
        S::Rgba8Sint => T::Rgba8Sint,
        S::Bgra8Unorm => T::Bgra8Unorm,
        S::Rgb10a2Uint => T::Rgb10a2Uint,
        S::Rgb10a2Unorm => T::Rgb10a2Unorm,
        S::Rg11b10Ufloat => T::Rg11b10Ufloat,
        S::R64Uint => T::R64Uint,
        S::Rg32Uint => T::Rg32Uint,
        S::Rg32Sint => T::Rg32Sint,
        S::Rg32Float => T::Rg32Float,
        S::Rgba16Uint => T::Rgba16Uint,
        S::Rgba16Sint => T::Rgba16Sint,
        S::Rgba16Float => T::Rgba16Float,
        S::Rgba32Uint => T::Rgba32Uint,
        S::Rgba32Sint => T::Rgba32Sint,
        S::Rgba32Float => T::Rgba32Float,
        S::R16Unorm => T::R16Unorm,
        S::R16Snorm => T::R16Snorm,
        S::Rg16Unorm => T::Rg16Unorm,
        S::Rg16Snorm => T::Rg16Snorm,
        S::Rgba16Unorm => T::Rgba16Unorm,
        S::Rgba16Snorm => T::Rgba16Snorm,
    }
}

/// A format's WGSL-style name (`rgba8unorm`), as users write it in `--format`.
pub fn format_name(format: wgpu::TextureFormat) -> String {
    format!("{format:?}").to_ascii_lowercase()
}
