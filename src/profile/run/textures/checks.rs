//! What can be checked of a texture before it is made: that each option names a texture or
//! sampler the kernel uses, the format (and whether a sampler may filter it), the extent, and
//! the adapter's limits.

use crate::gpu::GpuContext;
use crate::profile::fill::{BindingRef, Named, unknown_target};
use crate::profile::kernel::{
    KernelInterface, SampleKind, TextureBinding, TextureClass, TextureDim, format_name,
};
use crate::profile::{Error as ProfileError, Flag};
use crate::{Error, Result};

use super::super::Request;
use super::Picture;

/// Each `--texture`, `--size`, `--format`, `--sampler` and `--save` names a resource of the
/// right kind.
pub(super) fn check_names(interface: &KernelInterface, request: &Request) -> Result<()> {
    let textures: Vec<String> = interface.textures.iter().map(|t| t.name.clone()).collect();
    let samplers: Vec<String> = interface.samplers.iter().map(|s| s.name.clone()).collect();
    let texture_refs = request
        .textures
        .fills
        .iter()
        .map(|s| (Flag::Texture, &s.target))
        .chain(
            request
                .textures
                .sizes
                .iter()
                .map(|s| (Flag::Size, &s.target)),
        )
        .chain(
            request
                .textures
                .formats
                .iter()
                .map(|s| (Flag::Format, &s.target)),
        )
        .chain(
            request
                .textures
                .saves
                .iter()
                .map(|s| (Flag::Save, &s.target)),
        );
    for (flag, target) in texture_refs {
        if !interface
            .textures
            .iter()
            .any(|t| target.names(&t.name, t.group, t.binding))
        {
            return Err(unknown(flag, target, "texture", &textures, interface));
        }
    }
    for spec in &request.textures.samplers {
        if !interface
            .samplers
            .iter()
            .any(|s| spec.target.names(&s.name, s.group, s.binding))
        {
            return Err(unknown(
                Flag::Sampler,
                &spec.target,
                "sampler",
                &samplers,
                interface,
            ));
        }
    }
    for save in &request.textures.saves {
        let t = interface
            .textures
            .iter()
            .find(|t| save.target.names(&t.name, t.group, t.binding))
            .expect("checked above");
        if !t.is_written() {
            return Err(ProfileError::BadTexture {
                flag: Some(Flag::Save),
                binding: Some(t.slot()),
                why: format!(
                    "--save {}: {} is {} {}, which the kernel cannot write; --save takes a \
                     `write` or `read_write` storage texture",
                    save.target,
                    t.label(),
                    t.dim,
                    t.class
                ),
            }
            .into());
        }
    }
    Ok(())
}

fn unknown(
    flag: Flag,
    target: &BindingRef,
    kind: &str,
    names: &[String],
    interface: &KernelInterface,
) -> Error {
    let (binding, why) = unknown_target(flag, target, kind, names, interface);
    ProfileError::BadTexture {
        flag: Some(flag),
        binding,
        why,
    }
    .into()
}

/// The texture's format: a storage texture's own, else `--format` or a default by texel type.
pub(super) fn format_of(
    gpu: &GpuContext,
    t: &TextureBinding,
    request: &Request,
) -> Result<wgpu::TextureFormat> {
    let asked =
        Named::last_for(&request.textures.formats, &t.name, t.group, t.binding).map(|f| f.0);
    let bad = |flag: Option<Flag>, why: String| -> Error {
        ProfileError::BadTexture {
            flag,
            binding: Some(t.slot()),
            why,
        }
        .into()
    };
    let format = match (t.class, asked) {
        (TextureClass::Storage { format, .. }, None) => format,
        (TextureClass::Storage { format, .. }, Some(_)) => {
            return Err(bad(
                Some(Flag::Format),
                format!(
                    "--format {}: {} is a storage texture of format {} (its type says so); drop \
                 --format",
                    t.name,
                    t.label(),
                    format_name(format)
                ),
            ));
        }
        (TextureClass::Depth { .. }, None) => wgpu::TextureFormat::Depth16Unorm,
        (TextureClass::Sampled { kind, .. }, None) => match kind {
            SampleKind::Float => wgpu::TextureFormat::Rgba8Unorm,
            SampleKind::Sint => wgpu::TextureFormat::Rgba32Sint,
            SampleKind::Uint => wgpu::TextureFormat::Rgba32Uint,
        },
        (class, Some(format)) => {
            let kind = |k| matches!(class, TextureClass::Sampled { kind, .. } if kind == k);
            let fits = match format.sample_type(None, None) {
                Some(wgpu::TextureSampleType::Depth) => {
                    matches!(class, TextureClass::Depth { .. })
                }
                Some(wgpu::TextureSampleType::Float { .. }) => kind(SampleKind::Float),
                Some(wgpu::TextureSampleType::Sint) => kind(SampleKind::Sint),
                Some(wgpu::TextureSampleType::Uint) => kind(SampleKind::Uint),
                None => false,
            };
            if !fits {
                return Err(bad(
                    Some(Flag::Format),
                    format!(
                        "--format {}={}: {} is a {} {} texture, which a {} texture cannot back",
                        t.name,
                        format_name(format),
                        t.label(),
                        t.dim,
                        t.class,
                        format_name(format)
                    ),
                ));
            }
            format
        }
    };
    let features = format.guaranteed_format_features(gpu.features());
    // wgpu binds a float texture that a sampler reads as filterable (a depth one as depth).
    let float = matches!(
        t.class,
        TextureClass::Sampled {
            kind: SampleKind::Float,
            ..
        }
    );
    if t.filtered
        && float
        && !features
            .flags
            .contains(wgpu::TextureFormatFeatureFlags::FILTERABLE)
    {
        return Err(bad(
            None,
            format!(
                "{} is sampled through a sampler, so it must be filterable, and {} is not on this \
             device; pass --format {}=rgba16float (or rgba8unorm)",
                t.label(),
                format_name(format),
                t.name
            ),
        ));
    }
    Ok(format)
}

/// The texture's extent from `--size`, the image of a `file:` fill, or the dispatch's global
/// size: a 2-D kernel gets the dispatch's width and height.
pub(super) fn extent_of(
    t: &TextureBinding,
    dims: Option<&[u32]>,
    picture: Option<&Picture>,
    global: [u32; 3],
) -> Result<[u32; 3]> {
    let bad = |why: String| -> Error {
        ProfileError::BadTexture {
            flag: Some(Flag::Size),
            binding: Some(t.slot()),
            why,
        }
        .into()
    };
    let wanted = match (dims, picture) {
        (Some(dims), _) => {
            let most = match t.dim {
                TextureDim::D1 | TextureDim::Cube => 1,
                TextureDim::D2 | TextureDim::CubeArray => 2,
                TextureDim::D2Array | TextureDim::D3 => 3,
            };
            if dims.len() > most {
                return Err(bad(format!(
                    "--size {}: {} is a {} texture, whose size is {}",
                    t.name,
                    t.label(),
                    t.dim,
                    t.dim.size_form()
                )));
            }
            let mut d = [1; 3];
            d[..dims.len()].copy_from_slice(dims);
            d
        }
        (None, Some(p)) => [p.size[0], p.size[1], 1],
        (None, None) => match t.dim {
            TextureDim::D1 => [global[0], 1, 1],
            TextureDim::D2 | TextureDim::D2Array => [global[0], global[1], 1],
            TextureDim::D3 => global,
            TextureDim::Cube | TextureDim::CubeArray => {
                let side = global[0].max(global[1]);
                [side, 1, 1]
            }
        },
    };
    if let Some(p) = picture
        && (p.size[0] != wanted[0] || p.size[1] != wanted[1])
    {
        return Err(bad(format!(
            "--size {} is {}x{}, but the image of its file: fill is {}x{}; drop --size or give \
             the image's",
            t.name, wanted[0], wanted[1], p.size[0], p.size[1]
        )));
    }
    Ok(match t.dim {
        TextureDim::Cube => [wanted[0], wanted[0], 6],
        TextureDim::CubeArray => [wanted[0], wanted[0], 6 * wanted[1]],
        TextureDim::D1 => [wanted[0], 1, 1],
        TextureDim::D2 => [wanted[0], wanted[1], 1],
        TextureDim::D2Array | TextureDim::D3 => wanted,
    })
}

pub(super) fn check_limits(
    t: &TextureBinding,
    extent: [u32; 3],
    limits: &wgpu::Limits,
) -> Result<()> {
    let [w, h, d] = extent;
    let flat = match t.dim {
        TextureDim::D1 => ("max_texture_dimension_1d", limits.max_texture_dimension_1d),
        TextureDim::D3 => ("max_texture_dimension_3d", limits.max_texture_dimension_3d),
        _ => ("max_texture_dimension_2d", limits.max_texture_dimension_2d),
    };
    let layers = match t.dim {
        TextureDim::D3 => flat,
        _ => ("max_texture_array_layers", limits.max_texture_array_layers),
    };
    let checks = [
        (w, "wide", flat),
        (h, "high", flat),
        (
            d,
            if t.dim == TextureDim::D3 {
                "deep"
            } else {
                "in layers"
            },
            layers,
        ),
    ];
    for (asked, along, (limit, max)) in checks {
        if asked > max {
            return Err(ProfileError::TextureLimit {
                texture: t.label(),
                name: t.name.clone(),
                asked,
                along,
                limit,
                max,
            }
            .into());
        }
    }
    Ok(())
}
