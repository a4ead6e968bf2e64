//! What a kernel reads and writes, put back before it runs again. A timed kernel runs many
//! times on the same resources; without this, each run would start from what the run before it
//! left, so a kernel that ends on its inputs (as its counted run showed, under the loop cap)
//! could loop far longer, or forever, on its own outputs (Collatz written over its seeds: a
//! seed of 1 leaves 0, where the loop never ends), and the time would be of inputs nobody
//! chose.

use crate::Result;
use crate::gpu::{GpuContext, level_bytes};

/// A resource a kernel reads and writes, with a copy of it as it was filled.
#[derive(Clone, Debug)]
pub enum Restore {
    /// A storage buffer.
    Buffer {
        filled: wgpu::Buffer,
        written: wgpu::Buffer,
    },
    /// A storage texture (its one mip level, every layer).
    Texture {
        filled: wgpu::Texture,
        written: wgpu::Texture,
    },
}

/// A resource to keep a copy of: a buffer or a texture the kernel reads and writes.
pub enum Written<'a> {
    Buffer(&'a wgpu::Buffer),
    Texture(&'a wgpu::Texture),
}

impl GpuContext {
    /// Copies of `written` as they are now, made in one submission, to put back with
    /// [`Self::restore`].
    pub fn keep_filled(&self, what: &str, written: &[Written<'_>]) -> Result<Vec<Restore>> {
        if written.is_empty() {
            return Ok(Vec::new());
        }
        let label = format!("{what} (as filled)");
        let kept: Vec<Restore> = (written.iter())
            .map(|w| match *w {
                Written::Buffer(buffer) => Restore::Buffer {
                    filled: self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(&label),
                        size: buffer.size(),
                        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    }),
                    written: buffer.clone(),
                },
                Written::Texture(texture) => Restore::Texture {
                    filled: self.device.create_texture(&wgpu::TextureDescriptor {
                        label: Some(&label),
                        size: texture.size(),
                        mip_level_count: 1,
                        sample_count: 1,
                        dimension: texture.dimension(),
                        format: texture.format(),
                        usage: wgpu::TextureUsages::COPY_SRC | wgpu::TextureUsages::COPY_DST,
                        view_formats: &[],
                    }),
                    written: texture.clone(),
                },
            })
            .collect();
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for restore in &kept {
            restore.encode(&mut encoder, Direction::Keep);
        }
        self.submit_and_wait(&label, encoder)?;
        Ok(kept)
    }

    /// Puts each of `restores` back as it was filled, in a submission of its own, so that no
    /// timer (timestamps or the CPU clock) counts it.
    pub fn restore(&self, what: &str, restores: &[Restore]) -> Result<()> {
        if restores.is_empty() {
            return Ok(());
        }
        let mut encoder = self.device.create_command_encoder(&Default::default());
        for restore in restores {
            restore.encode(&mut encoder, Direction::PutBack);
        }
        self.submit_and_wait(what, encoder)
    }
}

/// Which way a copy goes: into the kept copy, or back into the written resource.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Keep,
    PutBack,
}

impl Restore {
    fn encode(&self, encoder: &mut wgpu::CommandEncoder, direction: Direction) {
        let keep = direction == Direction::Keep;
        match self {
            Self::Buffer { filled, written } => {
                let (from, to) = if keep {
                    (written, filled)
                } else {
                    (filled, written)
                };
                encoder.copy_buffer_to_buffer(from, 0, to, 0, from.size());
            }
            Self::Texture { filled, written } => {
                let (from, to) = if keep {
                    (written, filled)
                } else {
                    (filled, written)
                };
                encoder.copy_texture_to_texture(
                    from.as_image_copy(),
                    to.as_image_copy(),
                    from.size(),
                );
            }
        }
    }

    /// The bytes the copy holds.
    pub fn bytes(&self) -> u64 {
        match self {
            Self::Buffer { filled, .. } => filled.size(),
            Self::Texture { filled, .. } => {
                level_bytes(filled, filled.format().block_copy_size(None).unwrap_or(16))
            }
        }
    }
}
