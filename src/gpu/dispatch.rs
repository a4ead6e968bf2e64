//! The one way divlab records compute work: bind buffers, describe dispatches, run a batch of
//! them in one pass. Experiments, tests and tools build on this; nothing outside `gpu/` opens a
//! compute pass or builds a bind group.

use crate::Result;
use crate::gpu::{GpuContext, Restore};

/// One compute dispatch: a pipeline, its bind groups and the workgroup grid.
#[derive(Clone, Debug)]
pub struct Dispatch {
    /// The compiled kernel.
    pub pipeline: wgpu::ComputePipeline,
    /// Its resources: group 0, 1, ...
    pub bind_groups: Vec<wgpu::BindGroup>,
    /// Workgroups in x, y and z.
    pub workgroups: [u32; 3],
    /// The kernel's immediate data (`var<immediate>`), set before the dispatch; empty for
    /// none.
    pub immediates: Vec<u8>,
    /// What the kernel reads and writes, put back as it was filled before each timed run
    /// ([`crate::gpu::GpuTimer`] runs a dispatch again and again); empty for none.
    pub restores: Vec<Restore>,
}

impl Dispatch {
    /// `pipeline` over `workgroups` workgroups in x, with `buffers` bound at bindings 0, 1, ...
    /// of group 0.
    pub fn new(
        gpu: &GpuContext,
        label: &str,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
        workgroups: u32,
    ) -> Self {
        Self {
            pipeline: pipeline.clone(),
            bind_groups: vec![gpu.bind(label, pipeline, buffers)],
            workgroups: [workgroups, 1, 1],
            immediates: Vec::new(),
            restores: Vec::new(),
        }
    }

    /// Records the dispatch into an open pass.
    pub(crate) fn record(&self, pass: &mut wgpu::ComputePass<'_>) {
        let [x, y, z] = self.workgroups;
        pass.set_pipeline(&self.pipeline);
        for (index, group) in (0u32..).zip(&self.bind_groups) {
            pass.set_bind_group(index, group, &[]);
        }
        if !self.immediates.is_empty() {
            pass.set_immediates(0, &self.immediates);
        }
        pass.dispatch_workgroups(x, y, z);
    }
}

impl GpuContext {
    /// A bind group for group 0 of `pipeline` with `buffers` at bindings 0, 1, ...
    pub fn bind(
        &self,
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
        self.bind_entries(label, &pipeline.get_bind_group_layout(0), &entries)
    }

    /// A bind group from explicit entries, for kernels whose bindings are not 0, 1, ... of one
    /// group (user kernels).
    pub fn bind_entries(
        &self,
        label: &str,
        layout: &wgpu::BindGroupLayout,
        entries: &[wgpu::BindGroupEntry<'_>],
    ) -> wgpu::BindGroup {
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout,
            entries,
        })
    }

    /// Runs `dispatches` in order in one compute pass of one submission, and waits for them.
    pub fn run_batch(&self, what: &str, dispatches: &[Dispatch]) -> Result<()> {
        let encoder = self.encode(what, None, dispatches);
        self.submit_and_wait(what, encoder)
    }

    /// Runs `pipeline` once over `workgroups` workgroups with `buffers` at bindings 0, 1, ...
    /// of group 0, and waits for it: the whole dispatch of a correctness kernel.
    pub fn dispatch(
        &self,
        what: &str,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
        workgroups: u32,
    ) -> Result<()> {
        self.run_batch(
            what,
            &[Dispatch::new(self, what, pipeline, buffers, workgroups)],
        )
    }

    /// An encoder holding one compute pass with `dispatches`, timestamped where asked.
    pub(crate) fn encode(
        &self,
        what: &str,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
        dispatches: &[Dispatch],
    ) -> wgpu::CommandEncoder {
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(what) });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(what),
                timestamp_writes,
            });
            for dispatch in dispatches {
                dispatch.record(&mut pass);
            }
        }
        encoder
    }
}
