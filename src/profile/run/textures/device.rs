//! Textures on the device, through `gpu/`: created (a format or usage the adapter lacks is
//! named), filled by a copy, or cleared by a render pass where no copy reaches (multisampled).

use crate::Result;
use crate::gpu::GpuContext;
use crate::profile::fill::{Fill, TexelLayout};
use crate::profile::kernel::{TextureBinding, TextureClass, TextureDim, format_name};
use crate::profile::{Error as ProfileError, Flag};

/// Samples of a multisampled texture.
const SAMPLES: u32 = 4;

/// Creates the texture, turning wgpu's validation error (a format or usage the adapter lacks)
/// into a message that names it.
pub(super) fn create(
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
    let texture = gpu.create_texture(&wgpu::TextureDescriptor {
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
    texture.map_err(|e| {
        ProfileError::BadTexture {
            flag: None,
            binding: Some(t.slot()),
            why: format!(
                "this adapter cannot make {} ({} {}) in format {}: pick another format \
                 (`--format`, or the storage format in the kernel) or another adapter. wgpu \
                 says: {e}",
                t.label(),
                t.dim,
                t.class,
                format_name(format)
            ),
        }
        .into()
    })
}

pub(super) fn upload(
    gpu: &GpuContext,
    t: &TextureBinding,
    texture: &wgpu::Texture,
    layout: TexelLayout,
    data: &[u8],
) -> Result<()> {
    let row = texture.width() * layout.texel_bytes() as u32;
    let Err(e) = gpu.write_texture(texture, data, row) else {
        return Ok(());
    };
    if matches!(t.class, TextureClass::Depth { .. }) {
        // wgpu's GL backend cannot copy into depth textures (DEPTH_TEXTURE_AND_BUFFER_COPIES).
        return Err(crate::Error::Unsupported {
            what: format!("filling the depth texture {}", t.label()),
            feature: "copies into depth textures (wgpu's DEPTH_TEXTURE_AND_BUFFER_COPIES; \
                      wgpu's GL backend lacks it): profile the kernel on Vulkan, Metal or DX12"
                .to_owned(),
        });
    }
    Err(ProfileError::BadTexture {
        flag: None,
        binding: Some(t.slot()),
        why: format!(
            "this adapter cannot fill {} ({} {}): wgpu says: {e}",
            t.label(),
            t.dim,
            t.class
        ),
    }
    .into())
}

/// Fills a multisampled texture, which no copy can reach, by clearing it in a render pass: it
/// holds one value, so only `zeros` and `values:` (one texel's channels) make sense.
pub(super) fn clear(
    gpu: &GpuContext,
    t: &TextureBinding,
    texture: &wgpu::Texture,
    fill: &Fill,
) -> Result<()> {
    let v = match fill {
        Fill::Zeros => [0.0; 4],
        Fill::Values(vs) if vs.len() <= 4 => {
            let mut v = [0.0; 4];
            v[..vs.len()].copy_from_slice(vs);
            v
        }
        other => {
            return Err(ProfileError::BadTexture {
                flag: Some(Flag::Texture),
                binding: Some(t.slot()),
                why: format!(
                    "--texture {}={other}: {} is multisampled, so divlab fills it by clearing it \
                     to one value; use zeros or values:R,G,B,A",
                    t.name,
                    t.label()
                ),
            }
            .into());
        }
    };
    let depth = matches!(t.class, TextureClass::Depth { .. });
    gpu.clear_texture(&t.name, texture, depth, v)
}
