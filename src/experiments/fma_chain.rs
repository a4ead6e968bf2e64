//! A pure-arithmetic kernel (`shaders/fma_chain.wgsl`) with known work, for timer checks and
//! throughput baselines.

use crate::Result;
use crate::gpu::{GpuContext, GpuTimer, Kernel, RuntimeChecks, storage_buffer};

/// The kernel. Its one loop runs `ITERATIONS` times, so it needs no injected guards.
pub const KERNEL: Kernel = Kernel {
    name: "fma_chain",
    source: include_str!("../../shaders/fma_chain.wgsl"),
    entry: "main",
    checks: RuntimeChecks::UncheckedBoundedByConstruction,
};

/// Keep in sync with `WORKGROUP_SIZE` in `shaders/fma_chain.wgsl`.
pub const WORKGROUP_SIZE: u32 = 64;

/// 16 vec4 FMAs per iteration, 2 flops each lane-component. Keep in sync with the shader's body.
pub const FLOPS_PER_ITERATION: f64 = 16.0 * 4.0 * 2.0;

/// A compiled `fma_chain` dispatch of fixed size.
pub struct FmaChain {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    workgroups: u32,
    iterations: u32,
}

impl FmaChain {
    /// Compiles the kernel for `iterations` loop trips over `workgroups` workgroups.
    pub fn new(gpu: &GpuContext, workgroups: u32, iterations: u32) -> Result<Self> {
        let pipeline =
            KERNEL.pipeline(gpu, KERNEL.source, &[("ITERATIONS", f64::from(iterations))])?;
        let sink = storage_buffer(
            gpu,
            "divlab.fma_chain.sink",
            u64::from(workgroups * WORKGROUP_SIZE) * 16,
        );
        let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("divlab.fma_chain.bind_group"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: sink.as_entire_binding(),
            }],
        });
        Ok(Self {
            pipeline,
            bind_group,
            workgroups,
            iterations,
        })
    }

    /// Runs the dispatch once and returns its time in nanoseconds.
    pub fn time(&self, gpu: &GpuContext, timer: &GpuTimer) -> Result<f64> {
        timer.time_pass(gpu, "divlab.fma_chain", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(self.workgroups, 1, 1);
        })
    }

    /// Floating-point operations one dispatch performs.
    pub fn flops(&self) -> f64 {
        f64::from(self.workgroups * WORKGROUP_SIZE)
            * f64::from(self.iterations)
            * FLOPS_PER_ITERATION
    }
}
