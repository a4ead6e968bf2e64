//! `scheduling.*`: independent thread scheduling (seeds 000, 001). Since lanes got their own
//! program counters, diverged lanes may interleave, code that assumes lockstep is a data race that
//! can still look correct, a spin on a flag set by another lane of the same subgroup ends only
//! where the hardware gives forward progress, and the short side of an unbalanced branch may run
//! ahead of the join; a handshake between the two sides of a branch completes only where diverged
//! paths interleave. One probe each, safe on any GPU: every loop in every kernel is bounded.

pub mod forward_progress;
pub mod handshake;
pub mod interleaving;
pub mod lockstep_race;
pub mod run_ahead;

use crate::experiments::Experiment;
use crate::gpu::GpuContext;

pub use forward_progress::ForwardProgress;
pub use handshake::Handshake;
pub use interleaving::Interleaving;
pub use lockstep_race::LockstepRace;
pub use run_ahead::RunAhead;

/// Workgroups per correctness dispatch: many subgroups on every device (512 of size 8 on
/// lavapipe, 128 of size 32 on NVIDIA), and a small dispatch even when every spin runs to its cap.
pub const WORKGROUPS: u32 = 32;

/// Every scheduling probe, in run order.
pub fn all() -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(ForwardProgress),
        Box::new(Handshake),
        Box::new(LockstepRace),
        Box::new(Interleaving),
        Box::new(RunAhead),
    ]
}

/// A bind group with `buffers` at bindings 0, 1, ... of group 0.
fn bind_group(
    gpu: &GpuContext,
    label: &str,
    pipeline: &wgpu::ComputePipeline,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry<'_>> = (0u32..)
        .zip(buffers)
        .map(|(binding, buffer)| wgpu::BindGroupEntry {
            binding,
            resource: buffer.as_entire_binding(),
        })
        .collect();
    gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    })
}

/// `part/whole`, 0 for an empty whole.
fn fraction(part: usize, whole: usize) -> f64 {
    part as f64 / whole.max(1) as f64
}
