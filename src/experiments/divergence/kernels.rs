//! The divergence kernels: WGSL generation for each form from `shaders/divergence.wgsl`, the
//! shared parameter block, and timed dispatches. The maths lives in `analysis.rs`.

use std::fmt::Write as _;

use crate::Result;
use crate::gpu::{GpuContext, GpuTimer, Kernel, RuntimeChecks, read_only_buffer, storage_buffer};

/// The template. As written it is the predicated form; the others replace `run_paths`.
pub const TEMPLATE: &str = include_str!("../../../shaders/divergence.wgsl");

const PATHS_BEGIN: &str = "// divlab:paths begin";
const PATHS_END: &str = "// divlab:paths end";

/// Most paths a kernel can have: the size of `DivergenceParams::trips`.
pub const MAX_PATHS: u32 = 128;

/// Vec4 FMAs per chain per loop trip. Keep in sync with `trip` in the shader.
pub const FMAS_PER_CHAIN_PER_TRIP: usize = 2;

/// Scalar flops per loop trip: 4 chains x 2 vec4 FMAs x 4 components x 2 flops.
pub const FLOPS_PER_TRIP: f64 = (4 * FMAS_PER_CHAIN_PER_TRIP * 4 * 2) as f64;

/// Selector modes. Keep in sync with `MODE_*` in `shaders/divergence.wgsl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Mode {
    /// `sel = subgroup_invocation_id % k`: k paths inside every subgroup.
    LaneDivergent = 0,
    /// `sel = subgroup number % k`: the same mix of paths, uniform inside each subgroup.
    SubgroupUniform = 1,
}

/// What a dispatch does. Keep in sync with `VARIANT_*` in `shaders/divergence.wgsl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Variant {
    /// The study's kernel.
    Work = 0,
    /// No work: each invocation stores its subgroup's entry-ballot lane count, lane and size.
    ProbeLanes = 1,
    /// Returns at once: same pipeline, bindings and size, no work. Its time is the floor.
    Empty = 2,
}

/// The kernel's parameters. Keep in sync with `DivergenceParams` in `shaders/divergence.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DivergenceParams {
    /// Number of paths in use.
    pub k: u32,
    /// A [`Mode`].
    pub mode: u32,
    /// A [`Variant`].
    pub variant: u32,
    /// Padding.
    pub pad: u32,
    /// Loop trips of path j, at `trips[j / 4][j % 4]`.
    pub trips: [[u32; 4]; (MAX_PATHS / 4) as usize],
}

impl DivergenceParams {
    /// Parameters with per-path trip counts from `trips_of(j)`.
    pub fn new(k: u32, mode: Mode, trips_of: impl Fn(u32) -> u32) -> Self {
        let mut trips = [[0; 4]; (MAX_PATHS / 4) as usize];
        for j in 0..MAX_PATHS {
            trips[(j / 4) as usize][(j % 4) as usize] = trips_of(j);
        }
        Self {
            k,
            mode: mode as u32,
            variant: Variant::Work as u32,
            pad: 0,
            trips,
        }
    }
}

/// The shapes of control flow the study compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Form {
    /// `if sel == 0 {..} else if sel == 1 {..} ...`
    IfChain,
    /// `switch sel { case 0u: {..} ... }`
    Switch,
    /// One loop whose trip count depends on the lane: `trips(sel)`.
    Loop,
    /// A balanced tree of binary `if`s over `sel`, `ceil(log2 paths)` levels deep.
    NestedIf,
    /// No branch on `sel`: per-lane constants, the same trip count for every lane.
    Predicated,
}

impl Form {
    /// The name used in ids, files and pipeline labels.
    pub fn name(self) -> &'static str {
        match self {
            Self::IfChain => "if_chain",
            Self::Switch => "switch",
            Self::Loop => "loop",
            Self::NestedIf => "nested_if",
            Self::Predicated => "predicated",
        }
    }

    /// Paths compiled into this form's kernel when the largest k of a study is `max_k`: every
    /// case for the branchy forms, so that every k runs the same code (on lavapipe a kernel
    /// with more cases ran up to 11% slower even subgroup-uniform, a code-size cost that would
    /// pass for divergence); one for the loop and predicated forms, which have one body.
    pub fn paths_compiled(self, max_k: u32) -> u32 {
        match self {
            Self::IfChain | Self::Switch | Self::NestedIf => max_k,
            Self::Loop | Self::Predicated => 1,
        }
    }

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
            source: TEMPLATE,
            entry: "main",
            checks: RuntimeChecks::UncheckedBoundedByConstruction,
        }
    }

    /// The WGSL for this form with `paths` paths (the largest k it will run).
    pub fn source(self, paths: u32) -> String {
        let run_paths = match self {
            Self::Predicated => return TEMPLATE.to_owned(),
            Self::IfChain => if_chain(paths),
            Self::Switch => switch(paths),
            Self::Loop => loop_form(),
            Self::NestedIf => nested_if(paths),
        };
        let begin = TEMPLATE
            .find(PATHS_BEGIN)
            .expect("template has the begin marker");
        let end = TEMPLATE
            .find(PATHS_END)
            .expect("template has the end marker")
            + PATHS_END.len();
        format!("{}{run_paths}{}", &TEMPLATE[..begin], &TEMPLATE[end..])
    }
}

/// Path j's constants, as WGSL literals. Matches `path_m` / `path_c` in the shader.
pub fn path_constants(j: u32) -> (f32, f32) {
    (0.9999 - j as f32 * 1e-5, 1e-4 + j as f32 * 1e-6)
}

/// One path's body: its own literal constants, its own loop.
fn path_body(j: u32, indent: &str) -> String {
    let (m, c) = path_constants(j);
    format!(
        "{indent}let n = trips({j}u);\n\
         {indent}for (var i = 0u; i < n; i++) {{\n\
         {indent}    s = trip(s, vec4<f32>({m:?}), vec4<f32>({c:?}));\n\
         {indent}}}\n"
    )
}

fn wrap(body: &str) -> String {
    format!(
        "// Generated by divlab (src/experiments/divergence/kernels.rs).\n\
         fn run_paths(sel: u32, s0: State) -> State {{\n    var s = s0;\n{body}    return s;\n}}\n"
    )
}

fn if_chain(paths: u32) -> String {
    let mut body = String::new();
    for j in 0..paths {
        let head = match j {
            0 => "    if sel == 0u {\n".to_owned(),
            j if j + 1 == paths => " else {\n".to_owned(),
            j => format!(" else if sel == {j}u {{\n"),
        };
        body.push_str(&head);
        body.push_str(&path_body(j, "        "));
        body.push_str("    }");
    }
    body.push('\n');
    wrap(&body)
}

fn switch(paths: u32) -> String {
    let mut body = String::from("    switch sel {\n");
    for j in 0..paths {
        let label = if j + 1 == paths {
            format!("case {j}u, default")
        } else {
            format!("case {j}u")
        };
        let _ = write!(
            body,
            "        {label}: {{\n{}        }}\n",
            path_body(j, "            ")
        );
    }
    body.push_str("    }\n");
    wrap(&body)
}

fn loop_form() -> String {
    // One body; only the trip count depends on the lane.
    wrap(
        "    let n = trips(sel);\n    for (var i = 0u; i < n; i++) {\n        s = trip(s, path_m(0u), path_c(0u));\n    }\n",
    )
}

fn nested_if(paths: u32) -> String {
    fn tree(lo: u32, hi: u32, depth: usize, out: &mut String) {
        let indent = "    ".repeat(depth);
        if hi - lo == 1 {
            out.push_str(&path_body(lo, &indent));
            return;
        }
        let mid = lo + (hi - lo).div_ceil(2);
        let _ = writeln!(out, "{indent}if sel < {mid}u {{");
        tree(lo, mid, depth + 1, out);
        let _ = writeln!(out, "{indent}}} else {{");
        tree(mid, hi, depth + 1, out);
        let _ = writeln!(out, "{indent}}}");
    }
    let mut body = String::new();
    tree(0, paths.max(1), 1, &mut body);
    wrap(&body)
}

/// A compiled form at one workgroup size.
pub struct Compiled {
    pipeline: wgpu::ComputePipeline,
    workgroup_size: u32,
}

impl Compiled {
    /// Compiles `form` with `paths` paths for `workgroup_size`.
    pub fn new(gpu: &GpuContext, form: Form, paths: u32, workgroup_size: u32) -> Result<Self> {
        let source = form.source(paths);
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
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    sink: wgpu::Buffer,
    workgroups: u32,
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
        let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("divlab.divergence.bind_group"),
            layout: &compiled.pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params_buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: sink.as_entire_binding(),
                },
            ],
        });
        Self {
            pipeline: compiled.pipeline.clone(),
            bind_group,
            sink,
            workgroups,
            invocations,
            params: *params,
        }
    }

    /// Runs once and returns the pass time in nanoseconds.
    pub fn time(&self, gpu: &GpuContext, timer: &GpuTimer) -> Result<f64> {
        timer.time_pass(gpu, "divlab.divergence", |pass| {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.dispatch_workgroups(self.workgroups, 1, 1);
        })
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
                let source = form.source(paths);
                if let Err(e) = crate::gpu::check_wgsl(&form.kernel().file(), &source) {
                    panic!("{form:?} with {paths} paths: {e}\n{source}");
                }
            }
        }
    }

    #[test]
    fn generated_forms_have_one_loop_per_path() {
        for form in [Form::IfChain, Form::Switch, Form::NestedIf] {
            let source = form.source(5);
            let run_paths = &source[source.find("fn run_paths").unwrap()..];
            assert_eq!(run_paths.matches("for (").count(), 5, "{form:?}");
            for j in 0..5 {
                assert!(
                    run_paths.contains(&format!("trips({j}u)")),
                    "{form:?} path {j}"
                );
            }
        }
    }
}
