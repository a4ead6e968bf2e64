//! The divergence kernels on the device: compiled forms and timed dispatches. Their WGSL and
//! parameter block are in `shaders::divergence`; the maths lives in `analysis/`.

use crate::Result;
use crate::gpu::{
    self, GpuContext, GpuTimer, Kernel, RuntimeChecks, read_only_buffer, storage_buffer,
};
use crate::shaders;

pub use crate::shaders::divergence::{
    DivergenceParams, FLOPS_PER_TRIP, Form, Mode, Selection, UNIFORM_BLOCK, Variant,
};

// `Form` and its WGSL live in `shaders/`; the part that needs the GPU layer lives here.
impl Form {
    /// The kernel definition: every loop runs `trips(j)` times, a small host-set number, so the
    /// kernels need no injected guards.
    pub fn kernel(self) -> Kernel {
        let name = match self {
            Self::IfChain => "divergence_if_chain",
            Self::Switch => "divergence_switch",
            Self::Loop => "divergence_loop",
            Self::NestedIf => "divergence_nested_if",
            Self::Predicated => "divergence_predicated",
        };
        Kernel {
            name,
            path: shaders::DIVERGENCE.path,
            source: shaders::divergence::TEMPLATE,
            entry: "main",
            checks: RuntimeChecks::UncheckedBoundedByConstruction,
        }
    }
}

/// A compiled form at one workgroup size.
pub struct Compiled {
    pipeline: wgpu::ComputePipeline,
    workgroup_size: u32,
}

impl Compiled {
    /// Compiles `form` with `paths` paths for `workgroup_size`.
    pub fn new(
        gpu: &GpuContext,
        form: Form,
        (paths, selection): (u32, Selection),
        workgroup_size: u32,
    ) -> Result<Self> {
        let source = form.source(paths, selection);
        let constants = [("WORKGROUP_SIZE", f64::from(workgroup_size))];
        let pipeline = form.kernel().pipeline(gpu, &source, &constants)?;
        Ok(Self {
            pipeline,
            workgroup_size,
        })
    }
}

impl Compiled {
    /// The subgroup size this pipeline runs with: the largest active-lane count of a ballot at
    /// the kernel's entry, over one dispatch of `invocations` (its `probe_lanes` mode).
    pub fn observed_subgroup_size(
        &self,
        gpu: &GpuContext,
        sinks: &Sinks,
        invocations: u32,
    ) -> Result<u32> {
        let mut params = DivergenceParams::new(1, Mode::LaneDivergent, |_| 0);
        params.variant = Variant::ProbeLanes as u32;
        let records = Dispatch::new(gpu, sinks, self, &params, invocations).results(gpu)?;
        Ok(records.iter().map(|r| r[0] as u32).max().unwrap_or(0))
    }

    /// The workgroup size it was compiled for.
    pub fn workgroup_size(&self) -> u32 {
        self.workgroup_size
    }
}

/// Output buffers shared by every dispatch of one size. Kernels only write them (the result
/// check reruns its dispatch before reading), and sharing keeps a study from allocating
/// gigabytes: on the H200, freeing that much slowed the next experiment's first kernels ~2.5x.
#[derive(Default)]
pub struct Sinks {
    buffers: std::cell::RefCell<std::collections::BTreeMap<u32, wgpu::Buffer>>,
}

impl Sinks {
    fn get(&self, gpu: &GpuContext, invocations: u32) -> wgpu::Buffer {
        self.buffers
            .borrow_mut()
            .entry(invocations)
            .or_insert_with(|| {
                storage_buffer(gpu, "divlab.divergence.sink", u64::from(invocations) * 16)
            })
            .clone()
    }
}

/// One timed configuration: a pipeline, its parameters and a dispatch size.
pub struct Dispatch {
    dispatch: gpu::Dispatch,
    sink: wgpu::Buffer,
    /// Invocations in the dispatch.
    pub invocations: u32,
    /// The parameters it runs with.
    pub params: DivergenceParams,
}

impl Dispatch {
    /// Prepares `compiled` with `params` over at least `invocations` invocations (rounded up
    /// to whole workgroups).
    pub fn new(
        gpu: &GpuContext,
        sinks: &Sinks,
        compiled: &Compiled,
        params: &DivergenceParams,
        invocations: u32,
    ) -> Self {
        let workgroups = invocations.div_ceil(compiled.workgroup_size).max(1);
        let invocations = workgroups * compiled.workgroup_size;
        let params_buffer = read_only_buffer(gpu, "divlab.divergence.params", params);
        let sink = sinks.get(gpu, invocations);
        Self {
            dispatch: gpu::Dispatch::new(
                gpu,
                "divlab.divergence",
                &compiled.pipeline,
                &[&params_buffer, &sink],
                workgroups,
            ),
            sink,
            invocations,
            params: *params,
        }
    }

    /// Runs once and returns the pass time in nanoseconds.
    pub fn time(&self, gpu: &GpuContext, timer: &GpuTimer) -> Result<f64> {
        timer.time(
            gpu,
            "divlab.divergence",
            std::slice::from_ref(&self.dispatch),
        )
    }

    /// The GPU dispatch.
    pub fn dispatch(&self) -> &gpu::Dispatch {
        &self.dispatch
    }

    /// Runs once more, then reads back what each invocation stored (the sum of its chains).
    pub fn results(&self, gpu: &GpuContext) -> Result<Vec<[f32; 4]>> {
        self.time(gpu, &GpuTimer::new(gpu))?;
        crate::gpu::read_buffer(gpu, "divlab.divergence results", &self.sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_is_valid_wgsl() {
        for form in [
            Form::IfChain,
            Form::Switch,
            Form::Loop,
            Form::NestedIf,
            Form::Predicated,
        ] {
            for paths in [1, 2, 3, 8, 33] {
                for selection in [Selection::Subgroup, Selection::Block] {
                    let source = form.source(paths, selection);
                    if let Err(e) = crate::gpu::check_wgsl(form.kernel().file(), &source) {
                        panic!("{form:?} with {paths} paths, {selection:?}: {e}\n{source}");
                    }
                    // An adapter without subgroups rejects any subgroup builtin in the module.
                    if selection == Selection::Block {
                        for builtin in ["@builtin(subgroup", "subgroupB", "enable subgroups"] {
                            assert!(!source.contains(builtin), "{form:?}: {builtin}\n{source}");
                        }
                    }
                }
            }
        }
    }
}
