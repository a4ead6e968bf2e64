//! Textures and samplers in and out of the GPU: created and filled under an error scope (so a
//! format or usage the adapter lacks comes back as wgpu's error, for the caller to name),
//! cleared by a render pass where no copy reaches (multisampled textures), and read back
//! through a staging buffer.

use crate::Result;
use crate::gpu::{GpuContext, read_buffer};

/// The bytes of `texture`'s first mip level, every layer and depth slice, at `texel` bytes a
/// texel.
pub fn level_bytes(texture: &wgpu::Texture, texel: u32) -> u64 {
    let size = texture.size();
    u64::from(size.width)
        * u64::from(size.height)
        * u64::from(size.depth_or_array_layers)
        * u64::from(texel)
}

impl GpuContext {
    /// Creates a texture; wgpu's validation error where the adapter cannot make it.
    pub fn create_texture(
        &self,
        desc: &wgpu::TextureDescriptor<'_>,
    ) -> std::result::Result<wgpu::Texture, wgpu::Error> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let texture = self.device.create_texture(desc);
        match pollster::block_on(scope.pop()) {
            Some(e) => Err(e),
            None => Ok(texture),
        }
    }

    /// Writes `data`, rows of `bytes_per_row` bytes, into the whole of `texture`; wgpu's
    /// validation error where the adapter cannot copy into it.
    pub fn write_texture(
        &self,
        texture: &wgpu::Texture,
        data: &[u8],
        bytes_per_row: u32,
    ) -> std::result::Result<(), wgpu::Error> {
        let size = texture.size();
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.queue.write_texture(
            texture.as_image_copy(),
            data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: Some(size.height),
            },
            size,
        );
        match pollster::block_on(scope.pop()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Clears `texture` to `value` (RGBA; the first channel for a `depth` texture) in a render
    /// pass, and waits: the one way to fill a multisampled texture, which no copy reaches.
    pub fn clear_texture(
        &self,
        what: &str,
        texture: &wgpu::Texture,
        depth: bool,
        value: [f64; 4],
    ) -> Result<()> {
        let view = texture.create_view(&Default::default());
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let [r, g, b, a] = value;
        let color = (!depth).then_some(wgpu::RenderPassColorAttachment {
            view: &view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                store: wgpu::StoreOp::Store,
            },
        });
        let depth_attachment = depth.then_some(wgpu::RenderPassDepthStencilAttachment {
            view: &view,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(r as f32),
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        });
        drop(encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("divlab.clear_texture"),
            color_attachments: &[color],
            depth_stencil_attachment: depth_attachment,
            ..Default::default()
        }));
        self.submit_and_wait(what, encoder)
    }

    /// Layer 0 of `texture` as it is now, `texel_bytes` a texel: rows top to bottom, without
    /// the padding a copy adds to each.
    pub fn read_texture(
        &self,
        what: &str,
        texture: &wgpu::Texture,
        texel_bytes: u32,
    ) -> Result<Vec<u8>> {
        self.read_texture_layers(what, texture, texel_bytes, 1)
    }

    /// The first `layers` layers (or depth slices) of `texture` as it is now, `texel_bytes` a
    /// texel: layer by layer, rows top to bottom, without the padding a copy adds to each row.
    pub fn read_texture_layers(
        &self,
        what: &str,
        texture: &wgpu::Texture,
        texel_bytes: u32,
        layers: u32,
    ) -> Result<Vec<u8>> {
        let wgpu::Extent3d { width, height, .. } = texture.size();
        let tight = width * texel_bytes;
        let row = tight.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("divlab.read_texture"),
            size: u64::from(row) * u64::from(height) * u64::from(layers),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(height),
                },
            },
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: layers,
            },
        );
        self.submit_and_wait(what, encoder)?;
        let padded: Vec<u8> = read_buffer(self, what, &buffer)?;
        Ok(padded
            .chunks(row as usize)
            .flat_map(|r| &r[..tight as usize])
            .copied()
            .collect())
    }

    /// Creates a sampler.
    pub fn create_sampler(&self, desc: &wgpu::SamplerDescriptor<'_>) -> wgpu::Sampler {
        self.device.create_sampler(desc)
    }
}
