//! A pure-arithmetic kernel (`shaders/fma_chain.wgsl`) with known work, for timer checks and
//! throughput baselines.

use crate::Result;
use crate::gpu::{Dispatch, GpuContext, GpuTimer, Kernel, RuntimeChecks, storage_buffer};
use crate::shaders;
pub use crate::shaders::fma_chain::{FLOPS_PER_ITERATION, WORKGROUP_SIZE};

/// The kernel. Its one loop runs `ITERATIONS` times, so it needs no injected guards.
pub const KERNEL: Kernel = Kernel::of(
    &shaders::FMA_CHAIN,
    "main",
    RuntimeChecks::UncheckedBoundedByConstruction,
);

/// A compiled `fma_chain` dispatch of fixed size.
pub struct FmaChain {
    dispatch: Dispatch,
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
        Ok(Self {
            dispatch: Dispatch::new(gpu, "divlab.fma_chain", &pipeline, &[&sink], workgroups),
            workgroups,
            iterations,
        })
    }

    /// Runs the dispatch once and returns its time in nanoseconds.
    pub fn time(&self, gpu: &GpuContext, timer: &GpuTimer) -> Result<f64> {
        timer.time(
            gpu,
            "divlab.fma_chain",
            std::slice::from_ref(&self.dispatch),
        )
    }

    /// The dispatch, for interleaved timing with [`GpuTimer::interleave`].
    pub fn dispatch(&self) -> &Dispatch {
        &self.dispatch
    }

    /// Floating-point operations one dispatch performs.
    pub fn flops(&self) -> f64 {
        f64::from(self.workgroups * WORKGROUP_SIZE)
            * f64::from(self.iterations)
            * FLOPS_PER_ITERATION
    }
}
