//! Buffers in and out of the GPU: storage buffers, and reading them back through a staging buffer.

use wgpu::util::DeviceExt as _;

use crate::gpu::GpuContext;
use crate::{Error, Result};

/// Creates a zeroed storage buffer that can be read back.
pub fn storage_buffer(gpu: &GpuContext, label: &str, bytes: u64) -> wgpu::Buffer {
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(4),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// Copies a whole storage buffer to a staging buffer and returns its contents.
pub fn read_buffer<T: bytemuck::Pod>(
    gpu: &GpuContext,
    what: &str,
    source: &wgpu::Buffer,
) -> Result<Vec<T>> {
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("divlab.readback.staging"),
        size: source.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("divlab.readback.encoder"),
        });
    encoder.copy_buffer_to_buffer(source, 0, &staging, 0, source.size());
    gpu.submit_and_wait(what, encoder)?;
    map_and_read(gpu, what, &staging)
}

/// Maps a `MAP_READ` buffer, copies it out and unmaps it. Waits within the context's timeout.
pub fn map_and_read<T: bytemuck::Pod>(
    gpu: &GpuContext,
    what: &str,
    staging: &wgpu::Buffer,
) -> Result<Vec<T>> {
    let slice = staging.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    gpu.wait(what, None)?;
    match rx.try_recv() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            return Err(Error::Wgpu {
                what: format!("mapping the results of {what}"),
                reason: e.to_string(),
            });
        }
        Err(_) => {
            super::watchdog::give_up(&format!("mapping the results of {what}"));
            return Err(Error::Timeout {
                what: format!("mapping the results of {what}"),
                seconds: gpu.timeout.as_secs_f64(),
            });
        }
    }
    let data = {
        let view = slice.get_mapped_range().map_err(|e| Error::Wgpu {
            what: format!("reading the results of {what}"),
            reason: e.to_string(),
        })?;
        bytemuck::pod_collect_to_vec(&view)
    };
    staging.unmap();
    Ok(data)
}

/// Creates a read-only storage buffer holding `value`.
pub fn read_only_buffer<T: bytemuck::Pod>(
    gpu: &GpuContext,
    label: &str,
    value: &T,
) -> wgpu::Buffer {
    gpu.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::bytes_of(value),
            usage: wgpu::BufferUsages::STORAGE,
        })
}

/// Creates a buffer holding `contents`, for `usage`.
pub fn buffer_with(
    gpu: &GpuContext,
    label: &str,
    contents: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    gpu.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage,
        })
}
