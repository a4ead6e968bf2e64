//! The kernel's textures and samplers on the device: each texture's format, size and contents
//! from `--format`, `--size` and `--texture` (or their defaults), checked against the adapter
//! before anything is made; the samplers from `--sampler`; and, after the run, the storage
//! textures `--save` asks for, written as PNG. `checks.rs` holds what is checked before a
//! texture is made, `device.rs` how it is made and filled.

use std::path::Path;

use crate::gpu::{GpuContext, level_bytes};
use crate::profile::explain::TexelBound;
use crate::profile::fill::{self, BindingRef, Fill, Named, Picture, TexelLayout};
use crate::profile::kernel::{
    KernelInterface, SamplerBinding, TextureBinding, TextureClass, TextureDim, format_name,
};
use crate::profile::{Error as ProfileError, Flag};
use crate::{Error, Result};

mod checks;
mod device;

use self::checks::{check_limits, check_names, extent_of, format_of};
use self::device::{clear, create, upload};
use super::Request;
use super::outputs::{TextureImage, png};

/// One texture as made: what the report says of it and what the dispatch binds.
pub(super) struct Texture {
    /// Index into [`KernelInterface::textures`].
    pub index: usize,
    /// Its format.
    pub format: wgpu::TextureFormat,
    /// Width, height, depth or layers.
    pub extent: [u32; 3],
    /// Its fill.
    pub fill: Fill,
    /// Whether `--texture` gave the fill.
    pub given: bool,
    /// Where a loop counts up to its texels and the default fill cut its random integers.
    pub bound: Option<TexelBound>,
    /// The texture.
    pub texture: wgpu::Texture,
    /// The view the kernel binds.
    pub view: wgpu::TextureView,
}

impl Texture {
    /// The bytes of its first mip level.
    pub fn bytes(&self) -> u64 {
        level_bytes(
            &self.texture,
            self.format.block_copy_size(None).unwrap_or(16),
        )
    }
}

fn unfillable(t: &TextureBinding, format: wgpu::TextureFormat, what: &str) -> Error {
    ProfileError::BadTexture {
        flag: None,
        binding: Some(t.slot()),
        why: format!(
            "{} is {}, a packed format divlab cannot have {what}; use `zeros` (a texture the \
             kernel only writes), or profile a kernel whose texture has a plain format",
            t.label(),
            format_name(format)
        ),
    }
    .into()
}

/// Makes every texture of `interface` as `request` asks, filled; a texture a loop counts up to
/// (`texel_bounds`), left to the default, has its random integers cut to a handful.
pub(super) fn make_textures(
    gpu: &GpuContext,
    interface: &KernelInterface,
    request: &Request,
    texel_bounds: &[TexelBound],
) -> Result<Vec<Texture>> {
    check_names(interface, request)?;
    let limits = gpu.limits();
    let mut out = Vec::with_capacity(interface.textures.len());
    for (index, t) in interface.textures.iter().enumerate() {
        // wgpu-hal 30's GL backend binds a 3-D storage texture's view as one slice, so the
        // kernel would see (and the profile count) a texture one slice deep.
        if gpu.info.backend == wgpu::Backend::Gl
            && t.dim == TextureDim::D3
            && matches!(t.class, TextureClass::Storage { .. })
        {
            return Err(Error::Unsupported {
                what: format!("the 3-D storage texture {} (line {})", t.label(), t.line),
                feature: "binding every slice of a 3-D storage texture (wgpu's GL backend binds \
                          one): profile the kernel on Vulkan, Metal or DX12"
                    .to_owned(),
            });
        }
        let mine = |target: &BindingRef| target.names(&t.name, t.group, t.binding);
        let given = Named::last_for(&request.textures.fills, &t.name, t.group, t.binding);
        let fill = given.map_or_else(|| default_fill(t), Clone::clone);
        let picture = match &fill {
            Fill::File(path) => Some(
                Picture::open(path, limits.max_texture_dimension_2d).map_err(|why| {
                    ProfileError::BadTexture {
                        flag: Some(Flag::Texture),
                        binding: Some(t.slot()),
                        why: format!(
                            "--texture {}=file:{}: {why}; give a PNG image, or another fill",
                            t.name,
                            path.display()
                        ),
                    }
                })?,
            ),
            _ => None,
        };
        let format = format_of(gpu, t, request)?;
        let size = Named::last_for(&request.textures.sizes, &t.name, t.group, t.binding);
        let global = std::array::from_fn(|i| {
            interface.workgroup_size[i].saturating_mul(request.dispatch[i])
        });
        let extent = extent_of(t, size.map(|s| s.0.as_slice()), picture.as_ref(), global)?;
        check_limits(t, extent, &limits)?;
        if TexelLayout::of(format).is_none()
            && request.textures.saves.iter().any(|s| mine(&s.target))
        {
            return Err(unfillable(t, format, "saved as PNG"));
        }
        let texture = create(gpu, t, format, extent)?;
        let bound = (given.is_none() && matches!(fill, Fill::Random(_)))
            .then(|| texel_bounds.iter().find(|b| b.texture == t.name))
            .flatten()
            .filter(|_| TexelLayout::of(format).is_some_and(|l| l.is_integer()));
        // A new texture holds zeros: only other fills need the format's texel layout.
        let layout = TexelLayout::of(format).filter(|_| fill != Fill::Zeros);
        if t.is_multisampled() {
            clear(gpu, t, &texture, &fill)?;
        } else if fill != Fill::Zeros {
            let layout = layout.ok_or_else(|| unfillable(t, format, "filled texel by texel"))?;
            let cut = bound.map(|_| TexelBound::BITS);
            let data = fill::texels(layout, extent, &fill, picture.as_ref(), t, cut)?;
            upload(gpu, t, &texture, layout, &data)?;
        }
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(t.dim.view_dimension()),
            ..Default::default()
        });
        out.push(Texture {
            index,
            format,
            extent,
            fill,
            given: given.is_some(),
            bound: bound.cloned(),
            texture,
            view,
        });
    }
    Ok(out)
}

/// Every sampler of `interface`, as `--sampler` asks or linear and clamped.
pub(super) fn make_samplers(
    gpu: &GpuContext,
    interface: &KernelInterface,
    request: &Request,
) -> Vec<wgpu::Sampler> {
    interface
        .samplers
        .iter()
        .map(|s| {
            let fill::SamplerMode { filter, address } = sampler_mode(request, s);
            gpu.create_sampler(&wgpu::SamplerDescriptor {
                label: Some(&s.name),
                address_mode_u: address,
                address_mode_v: address,
                address_mode_w: address,
                mag_filter: filter,
                min_filter: filter,
                compare: s.comparison.then_some(wgpu::CompareFunction::LessEqual),
                ..Default::default()
            })
        })
        .collect()
}

/// How sampler `s` reads: as its last `--sampler` says, or linear and clamped.
fn sampler_mode(request: &Request, s: &SamplerBinding) -> fill::SamplerMode {
    Named::last_for(&request.textures.samplers, &s.name, s.group, s.binding)
        .copied()
        .unwrap_or_default()
}

/// A texture's fill without `--texture`: random like a buffer's, but nothing for a texture the
/// kernel only writes.
fn default_fill(t: &TextureBinding) -> Fill {
    match t.class {
        TextureClass::Storage {
            access: crate::profile::kernel::TextureAccess::Write,
            ..
        } => Fill::Zeros,
        _ if t.is_multisampled() => Fill::Zeros,
        _ => Fill::default(),
    }
}

/// Writes layer 0 of each texture `--save` names to its PNG file, read back now.
pub(super) fn save_textures(
    gpu: &GpuContext,
    interface: &KernelInterface,
    request: &Request,
    textures: &[Texture],
    write: &dyn Fn(&Path, &[u8]) -> Result<()>,
) -> Result<()> {
    for save in &request.textures.saves {
        let made = textures
            .iter()
            .find(|m| {
                let t = &interface.textures[m.index];
                save.target.names(&t.name, t.group, t.binding)
            })
            .expect("--save names were checked");
        let t = &interface.textures[made.index];
        let (size, rgba) =
            read_rgba8(gpu, made)?.ok_or_else(|| unfillable(t, made.format, "saved as PNG"))?;
        write(&save.value.0, &png(size, &rgba))?;
    }
    Ok(())
}

/// The most texels of one texture [`images`] reads back (a 4096 × 4096 picture).
const MAX_IMAGE_TEXELS: u64 = 1 << 24;

/// Layer 0 of every texture a picture can show, as it is now (after the counted run: what the
/// kernel wrote, or its input where it only reads). Multisampled textures, packed and depth
/// formats, and textures over [`MAX_IMAGE_TEXELS`] are left out.
pub(super) fn images(
    gpu: &GpuContext,
    interface: &KernelInterface,
    textures: &[Texture],
) -> Result<Vec<TextureImage>> {
    let mut out = Vec::new();
    for made in textures {
        let t = &interface.textures[made.index];
        let [w, h, _] = made.extent;
        if t.is_multisampled()
            || matches!(t.class, TextureClass::Depth { .. })
            || u64::from(w) * u64::from(h) > MAX_IMAGE_TEXELS
        {
            continue;
        }
        if let Some((size, rgba)) = read_rgba8(gpu, made)? {
            out.push(TextureImage {
                name: t.name.clone(),
                label: t.label(),
                written: t.is_written(),
                size,
                rgba,
            });
        }
    }
    Ok(out)
}

/// Layer 0 of `made`, read back now, as 8-bit RGBA rows top to bottom; `None` for a format
/// without a texel layout.
fn read_rgba8(gpu: &GpuContext, made: &Texture) -> Result<Option<([u32; 2], Vec<u8>)>> {
    let Some(layout) = TexelLayout::of(made.format) else {
        return Ok(None);
    };
    let [w, h, _] = made.extent;
    let texel = layout.texel_bytes() as u32;
    let tight = gpu.read_texture("reading a texture back", &made.texture, texel)?;
    Ok(Some(([w, h], fill::to_rgba8(layout, [w, h, 1], &tight))))
}

/// One line per texture and sampler: what the kernel ran on.
pub(super) fn describe(
    interface: &KernelInterface,
    request: &Request,
    textures: &[Texture],
) -> Vec<String> {
    let note = uncovered(interface, request, textures);
    let textures = textures.iter().map(|made| {
        let t = &interface.textures[made.index];
        let [w, h, d] = made.extent;
        let size = match t.dim {
            TextureDim::D1 => format!("{w}"),
            TextureDim::D2 => format!("{w}×{h}"),
            TextureDim::Cube => format!("{w}×{h}, 6 faces"),
            TextureDim::CubeArray => format!("{w}×{h}, {}", count(d / 6, "cube")),
            TextureDim::D2Array => format!("{w}×{h}, {}", count(d, "layer")),
            TextureDim::D3 => format!("{w}×{h}×{d}"),
        };
        let cut = made.bound.as_ref().map_or(String::new(), |b| {
            format!(
                ", its integers cut to 0 to {} (the default, as the loop at line {} counts up to \
                 its texels at `{}`, a handful of trips where full-range integers run the loop \
                 into the cap; pass --texture {}=random for those)",
                TexelBound::LARGEST,
                b.line,
                b.coordinate,
                t.name
            )
        });
        format!(
            "texture {}: {} {} as {}, {size}, filled {}{cut}",
            t.label(),
            t.dim,
            t.class,
            format_name(made.format),
            made.fill
        )
    });
    let samplers = interface.samplers.iter().map(|s| {
        let mode = sampler_mode(request, s);
        let compare = if s.comparison {
            ", compares less-equal"
        } else {
            ""
        };
        format!(
            "sampler `{}` (@group({}) @binding({})): {mode}{compare}",
            s.name, s.group, s.binding
        )
    });
    textures.chain(samplers).chain(note).collect()
}

/// A note for the largest 2-D texture that an image file or `--size` made larger than the
/// dispatch's invocations: a newcomer who forgot `--dispatch` profiles a corner of the picture.
/// Hedged: a kernel may handle several texels per invocation (tiled blurs).
fn uncovered(
    interface: &KernelInterface,
    request: &Request,
    textures: &[Texture],
) -> Option<String> {
    let [wx, wy, _] = interface.workgroup_size.map(|n| n.max(1));
    let [dx, dy, dz] = request.dispatch;
    let (covered_x, covered_y) = (wx.saturating_mul(dx), wy.saturating_mul(dy));
    let made = textures
        .iter()
        .filter(|m| {
            matches!(
                interface.textures[m.index].dim,
                TextureDim::D2 | TextureDim::D2Array
            )
        })
        .filter(|m| m.extent[0] > covered_x || m.extent[1] > covered_y)
        .max_by_key(|m| u64::from(m.extent[0]) * u64::from(m.extent[1]))?;
    let t = &interface.textures[made.index];
    let [w, h, _] = made.extent;
    let z = if dz > 1 {
        format!(",{dz}")
    } else {
        String::new()
    };
    Some(format!(
        "the dispatch runs {covered_x}×{covered_y} invocations and {} is {w}×{h}: if each \
         invocation handles one texel, --dispatch {},{}{z} covers it",
        t.label(),
        w.div_ceil(wx),
        h.div_ceil(wy)
    ))
}

/// `n` of `noun`: `1 layer`, `4 layers`.
fn count(n: u32, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
