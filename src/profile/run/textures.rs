//! The kernel's textures and samplers on the device: each texture's format, size and contents
//! from `--format`, `--size` and `--texture` (or their defaults), checked against the adapter
//! before anything is made; the samplers from `--sampler`; and, after the run, the storage
//! textures `--save` asks for, written as PNG.

use std::path::Path;

use crate::gpu::{GpuContext, read_buffer};
use crate::profile::Error as ProfileError;
use crate::profile::fill::{
    self, BindingRef, DEFAULT_ADDRESS, DEFAULT_FILTER, Fill, Picture, TexelLayout,
};
use crate::profile::kernel::{
    KernelInterface, SampleKind, TextureBinding, TextureClass, TextureDim, format_name,
};
use crate::{Error, Result};

use super::Request;

/// Samples of a multisampled texture.
const SAMPLES: u32 = 4;

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
    /// The texture.
    pub texture: wgpu::Texture,
    /// The view the kernel binds.
    pub view: wgpu::TextureView,
}

fn unfillable(t: &TextureBinding, format: wgpu::TextureFormat, what: &str) -> Error {
    ProfileError::BadTexture(format!(
        "{} is {}, a packed format divlab cannot have {what}; use `zeros` (a texture the kernel \
         only writes), or profile a kernel whose texture has a plain format",
        t.label(),
        format_name(format)
    ))
    .into()
}

/// Makes every texture of `interface` as `request` asks, filled.
pub(super) fn make_textures(
    gpu: &GpuContext,
    interface: &KernelInterface,
    request: &Request,
) -> Result<Vec<Texture>> {
    check_names(interface, request)?;
    let limits = gpu.device.limits();
    let mut out = Vec::with_capacity(interface.textures.len());
    for (index, t) in interface.textures.iter().enumerate() {
        let mine = |target: &BindingRef| target.names(&t.name, t.group, t.binding);
        let fill = request
            .textures
            .iter()
            .rev()
            .find(|s| mine(&s.target))
            .map_or_else(|| default_fill(t), |s| s.fill.clone());
        let picture = match &fill {
            Fill::File(path) => Some(Picture::open(path).map_err(|why| {
                ProfileError::BadTexture(format!(
                    "--texture {}=file:{}: {why}; give a PNG image, or another fill",
                    t.name,
                    path.display()
                ))
            })?),
            _ => None,
        };
        let format = format_of(gpu, t, request)?;
        let size = request.sizes.iter().rev().find(|s| mine(&s.target));
        let global = std::array::from_fn(|i| {
            interface.workgroup_size[i].saturating_mul(request.dispatch[i])
        });
        let extent = extent_of(t, size.map(|s| s.dims.as_slice()), picture.as_ref(), global)?;
        check_limits(t, extent, &limits)?;
        if TexelLayout::of(format).is_none() && request.saves.iter().any(|s| mine(&s.target)) {
            return Err(unfillable(t, format, "saved as PNG"));
        }
        let texture = create(gpu, t, format, extent)?;
        // A new texture holds zeros: only other fills need the format's texel layout.
        let layout = TexelLayout::of(format).filter(|_| fill != Fill::Zeros);
        if t.is_multisampled() {
            clear(gpu, t, &texture, &fill)?;
        } else if fill != Fill::Zeros {
            let layout = layout.ok_or_else(|| unfillable(t, format, "filled texel by texel"))?;
            let slot = u64::from(t.group) << 32 | u64::from(t.binding);
            let data = fill::texels(layout, extent, &fill, picture.as_ref(), slot, &t.label())?;
            upload(gpu, &texture, layout, extent, &data);
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
            let spec = request
                .samplers
                .iter()
                .rev()
                .find(|spec| spec.target.names(&s.name, s.group, s.binding));
            let filter = spec.map_or(DEFAULT_FILTER, |spec| spec.filter);
            let address = spec.map_or(DEFAULT_ADDRESS, |spec| spec.address);
            gpu.device.create_sampler(&wgpu::SamplerDescriptor {
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

/// Each `--texture`, `--size`, `--format`, `--sampler` and `--save` names a resource of the
/// right kind.
fn check_names(interface: &KernelInterface, request: &Request) -> Result<()> {
    let textures: Vec<String> = interface.textures.iter().map(|t| t.name.clone()).collect();
    let samplers: Vec<String> = interface.samplers.iter().map(|s| s.name.clone()).collect();
    let texture_refs = request
        .textures
        .iter()
        .map(|s| ("--texture", &s.target))
        .chain(request.sizes.iter().map(|s| ("--size", &s.target)))
        .chain(request.formats.iter().map(|s| ("--format", &s.target)))
        .chain(request.saves.iter().map(|s| ("--save", &s.target)));
    for (flag, target) in texture_refs {
        if !interface
            .textures
            .iter()
            .any(|t| target.names(&t.name, t.group, t.binding))
        {
            return Err(unknown(
                flag,
                target,
                "texture",
                &textures,
                &interface.entry,
            ));
        }
    }
    for spec in &request.samplers {
        if !interface
            .samplers
            .iter()
            .any(|s| spec.target.names(&s.name, s.group, s.binding))
        {
            return Err(unknown(
                "--sampler",
                &spec.target,
                "sampler",
                &samplers,
                &interface.entry,
            ));
        }
    }
    for save in &request.saves {
        let t = interface
            .textures
            .iter()
            .find(|t| save.target.names(&t.name, t.group, t.binding))
            .expect("checked above");
        if !t.is_written() {
            return Err(ProfileError::BadTexture(format!(
                "--save {}: {} is {} {}, which the kernel cannot write; --save takes a `write` or \
                 `read_write` storage texture",
                save.target,
                t.label(),
                t.dim,
                t.class
            ))
            .into());
        }
    }
    Ok(())
}

fn unknown(flag: &str, target: &BindingRef, kind: &str, names: &[String], entry: &str) -> Error {
    let list = if names.is_empty() {
        format!("it uses no {kind}")
    } else {
        format!("its {kind}s are {}", names.join(", "))
    };
    ProfileError::BadTexture(format!(
        "{flag} {target}=...: entry point `{entry}` uses no {kind} `{target}`; {list}"
    ))
    .into()
}

/// The texture's format: a storage texture's own, else `--format` or a default by texel type.
fn format_of(
    gpu: &GpuContext,
    t: &TextureBinding,
    request: &Request,
) -> Result<wgpu::TextureFormat> {
    let asked = request
        .formats
        .iter()
        .rev()
        .find(|s| s.target.names(&t.name, t.group, t.binding))
        .map(|s| s.format);
    let bad = |why: String| -> Error { ProfileError::BadTexture(why).into() };
    let format = match (t.class, asked) {
        (TextureClass::Storage { format, .. }, None) => format,
        (TextureClass::Storage { format, .. }, Some(_)) => {
            return Err(bad(format!(
                "--format {}: {} is a storage texture of format {} (its type says so); drop \
                 --format",
                t.name,
                t.label(),
                format_name(format)
            )));
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
                return Err(bad(format!(
                    "--format {}={}: {} is a {} {} texture, which a {} texture cannot back",
                    t.name,
                    format_name(format),
                    t.label(),
                    t.dim,
                    t.class,
                    format_name(format)
                )));
            }
            format
        }
    };
    let features = format.guaranteed_format_features(gpu.device.features());
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
        return Err(bad(format!(
            "{} is sampled through a sampler, so it must be filterable, and {} is not on this \
             device; pass --format {}=rgba16float (or rgba8unorm)",
            t.label(),
            format_name(format),
            t.name
        )));
    }
    Ok(format)
}

/// The texture's extent from `--size`, the image of a `file:` fill, or the dispatch's global
/// size: a 2-D kernel gets the dispatch's width and height.
fn extent_of(
    t: &TextureBinding,
    dims: Option<&[u32]>,
    picture: Option<&Picture>,
    global: [u32; 3],
) -> Result<[u32; 3]> {
    let bad = |why: String| -> Error { ProfileError::BadTexture(why).into() };
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

fn check_limits(t: &TextureBinding, extent: [u32; 3], limits: &wgpu::Limits) -> Result<()> {
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

/// Creates the texture, turning wgpu's validation error (a format or usage the adapter lacks)
/// into a message that names it.
fn create(
    gpu: &GpuContext,
    t: &TextureBinding,
    format: wgpu::TextureFormat,
    extent: [u32; 3],
) -> Result<wgpu::Texture> {
    let multisampled = t.is_multisampled();
    let mut usage = wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::COPY_SRC;
    usage |= match t.class {
        TextureClass::Storage { .. } => wgpu::TextureUsages::STORAGE_BINDING,
        _ => wgpu::TextureUsages::TEXTURE_BINDING,
    };
    if multisampled {
        usage = wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::RENDER_ATTACHMENT;
    }
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(&t.name),
        size: wgpu::Extent3d {
            width: extent[0],
            height: extent[1],
            depth_or_array_layers: extent[2],
        },
        mip_level_count: 1,
        sample_count: if multisampled { SAMPLES } else { 1 },
        dimension: match t.dim {
            TextureDim::D1 => wgpu::TextureDimension::D1,
            TextureDim::D3 => wgpu::TextureDimension::D3,
            _ => wgpu::TextureDimension::D2,
        },
        format,
        usage,
        view_formats: &[],
    });
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(ProfileError::BadTexture(format!(
            "this adapter cannot make {} ({} {}) in format {}: pick another format \
             (`--format`, or the storage format in the kernel) or another adapter. wgpu says: \
             {e}",
            t.label(),
            t.dim,
            t.class,
            format_name(format)
        ))
        .into());
    }
    Ok(texture)
}

fn upload(
    gpu: &GpuContext,
    texture: &wgpu::Texture,
    layout: TexelLayout,
    extent: [u32; 3],
    data: &[u8],
) {
    let row = extent[0] * layout.texel_bytes() as u32;
    gpu.queue.write_texture(
        texture.as_image_copy(),
        data,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(row),
            rows_per_image: Some(extent[1]),
        },
        texture.size(),
    );
}

/// Fills a multisampled texture, which no copy can reach, by clearing it in a render pass: it
/// holds one value, so only `zeros` and `values:` (one texel's channels) make sense.
fn clear(gpu: &GpuContext, t: &TextureBinding, texture: &wgpu::Texture, fill: &Fill) -> Result<()> {
    let v = match fill {
        Fill::Zeros => [0.0; 4],
        Fill::Values(vs) if vs.len() <= 4 => {
            let mut v = [0.0; 4];
            v[..vs.len()].copy_from_slice(vs);
            v
        }
        other => {
            return Err(ProfileError::BadTexture(format!(
                "--texture {}={other}: {} is multisampled, so divlab fills it by clearing it to \
                 one value; use zeros or values:R,G,B,A",
                t.name,
                t.label()
            ))
            .into());
        }
    };
    let view = texture.create_view(&Default::default());
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let depth = matches!(t.class, TextureClass::Depth { .. });
    let color = (!depth).then(|| wgpu::RenderPassColorAttachment {
        view: &view,
        depth_slice: None,
        resolve_target: None,
        ops: wgpu::Operations {
            load: wgpu::LoadOp::Clear(wgpu::Color {
                r: v[0],
                g: v[1],
                b: v[2],
                a: v[3],
            }),
            store: wgpu::StoreOp::Store,
        },
    });
    let depth_attachment = depth.then(|| wgpu::RenderPassDepthStencilAttachment {
        view: &view,
        depth_ops: Some(wgpu::Operations {
            load: wgpu::LoadOp::Clear(v[0] as f32),
            store: wgpu::StoreOp::Store,
        }),
        stencil_ops: None,
    });
    drop(encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("divlab.profile.clear"),
        color_attachments: &[color],
        depth_stencil_attachment: depth_attachment,
        ..Default::default()
    }));
    gpu.submit_and_wait(&t.name, encoder)
}

/// Writes layer 0 of each texture `--save` names to its PNG file, read back now.
pub(super) fn save_textures(
    gpu: &GpuContext,
    interface: &KernelInterface,
    request: &Request,
    textures: &[Texture],
    write: &dyn Fn(&Path, &[u8]) -> Result<()>,
) -> Result<()> {
    for save in &request.saves {
        let made = textures
            .iter()
            .find(|m| {
                let t = &interface.textures[m.index];
                save.target.names(&t.name, t.group, t.binding)
            })
            .expect("--save names were checked");
        let t = &interface.textures[made.index];
        let layout = TexelLayout::of(made.format)
            .ok_or_else(|| unfillable(t, made.format, "saved as PNG"))?;
        let [w, h, _] = made.extent;
        let texel = layout.texel_bytes() as u32;
        let row = (w * texel).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("divlab.profile.save"),
            size: u64::from(row * h),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            made.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        gpu.submit_and_wait("--save", encoder)?;
        let padded: Vec<u8> = read_buffer(gpu, "--save", &buffer)?;
        let tight: Vec<u8> = padded
            .chunks(row as usize)
            .flat_map(|r| &r[..(w * texel) as usize])
            .copied()
            .collect();
        let rgba = fill::to_rgba8(layout, [w, h, 1], &tight);
        let mut png = Vec::new();
        image::RgbaImage::from_raw(w, h, rgba)
            .expect("w × h RGBA texels")
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .expect("PNG encodes into memory");
        write(&save.path, &png)?;
    }
    Ok(())
}

/// One line per texture and sampler: what the kernel ran on.
pub(super) fn describe(
    interface: &KernelInterface,
    request: &Request,
    textures: &[Texture],
) -> Vec<String> {
    let textures = textures.iter().map(|made| {
        let t = &interface.textures[made.index];
        let [w, h, d] = made.extent;
        let size = match t.dim {
            TextureDim::D1 => format!("{w}"),
            TextureDim::D2 => format!("{w}×{h}"),
            TextureDim::Cube => format!("{w}×{h}, 6 faces"),
            TextureDim::CubeArray => format!("{w}×{h}, {} cubes", d / 6),
            TextureDim::D2Array => format!("{w}×{h}, {d} layers"),
            TextureDim::D3 => format!("{w}×{h}×{d}"),
        };
        format!(
            "texture {}: {} {} as {}, {size}, filled {}",
            t.label(),
            t.dim,
            t.class,
            format_name(made.format),
            made.fill
        )
    });
    let samplers = interface.samplers.iter().map(|s| {
        let spec = request
            .samplers
            .iter()
            .rev()
            .find(|spec| spec.target.names(&s.name, s.group, s.binding));
        let mode = fill::sampler_mode(
            spec.map_or(DEFAULT_FILTER, |spec| spec.filter),
            spec.map_or(DEFAULT_ADDRESS, |spec| spec.address),
        );
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
    textures.chain(samplers).collect()
}
