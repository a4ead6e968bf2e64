//! Running a profile: the user's buffers, the instrumented dispatch (within the loop cap and the
//! device's timeout), the counters read back, then the kernel timed alone and instrumented.

use std::path::Path;

use crate::bench::adapter_record;
use crate::experiments::Lab;
use crate::gpu::{
    Dispatch, GpuContext, GpuTimer, LLVMPIPE_LOOP_ITERATIONS, RuntimeChecks, compile_wgsl,
    create_pipeline, read_buffer,
};
use crate::profile::Error as ProfileError;
use crate::profile::fill::{self, BindingRef, BufferSpec};
use crate::profile::instrument::{self, InstrumentOptions, Instrumented};
use crate::profile::kernel::{self, KernelInterface};
use crate::profile::report::{
    self, Inputs, KernelRecord, OBSERVER_NOTE, PROFILE_SCHEMA_VERSION, Profile, TimingRecord,
};
use crate::shaders::{check_wgsl, prepare_for_naga};
use crate::{Error, Result};

/// The default loop cap: iterations one invocation may run of one entry into a loop.
pub const DEFAULT_LOOP_CAP: u32 = 1_000_000;

/// What to profile and how.
#[derive(Clone, Debug)]
pub struct Request {
    /// The file, as the user named it (for messages and the report).
    pub file: String,
    /// Its WGSL.
    pub source: String,
    /// `--entry`.
    pub entry: Option<String>,
    /// Workgroups in x, y, z.
    pub dispatch: [u32; 3],
    /// `--buffer BINDING=FILL`.
    pub buffers: Vec<BufferSpec>,
    /// `--len BINDING=N`.
    pub lens: Vec<(BindingRef, u64)>,
    /// `--override NAME=VALUE`.
    pub overrides: Vec<(String, f64)>,
    /// `--loop-cap`.
    pub loop_cap: u32,
    /// `--reps`: timed repetitions of each kernel.
    pub reps: usize,
    /// `--lanes LINE`: record the ballot of every subgroup execution at this line.
    pub lanes_line: Option<u32>,
}

impl Request {
    /// A request for `source` with every default.
    pub fn new(file: impl Into<String>, source: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            source: source.into(),
            entry: None,
            dispatch: [1, 1, 1],
            buffers: Vec::new(),
            lens: Vec::new(),
            overrides: Vec::new(),
            loop_cap: DEFAULT_LOOP_CAP,
            reps: 15,
            lanes_line: None,
        }
    }

    /// Reads `path`, with every default.
    pub fn from_file(path: &Path) -> Result<Self> {
        let source = std::fs::read_to_string(path).map_err(|e| ProfileError::ReadKernel {
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
        Ok(Self::new(path.display().to_string(), source))
    }
}

/// A kernel prepared for profiling: its interface, its instrumented form and its buffers.
pub struct Prepared {
    /// The entry point, workgroup size and bindings.
    pub interface: KernelInterface,
    /// The instrumented kernel.
    pub instrumented: Instrumented,
    /// The loop cap in force (lowered on llvmpipe, where a cap above
    /// [`LLVMPIPE_LOOP_ITERATIONS`] would never fire).
    pub loop_cap: u32,
    /// Remarks for the report.
    pub notes: Vec<String>,
}

/// Parses, resolves overrides, reads the interface and instruments: everything that can be
/// checked before the device runs anything.
pub fn prepare(gpu: &GpuContext, request: &Request) -> Result<Prepared> {
    let module = check_wgsl(&request.file, &request.source)?;
    let module = kernel::apply_overrides(&module, &request.overrides)?;
    let prepared = prepare_for_naga(&request.source);
    let interface = kernel::interface(&module, &prepared, &request.file, request.entry.as_deref())?;
    let counters_group = interface
        .bindings
        .iter()
        .map(|b| b.group + 1)
        .max()
        .unwrap_or(0);
    let max_groups = gpu.device.limits().max_bind_groups;
    if counters_group >= max_groups {
        return Err(ProfileError::NoCountersGroup {
            highest: counters_group.saturating_sub(1),
            available: max_groups,
        }
        .into());
    }
    let mut notes = vec![if gpu.caps.subgroups {
        OBSERVER_NOTE.to_owned()
    } else {
        "the counters are private increments added atomically where an invocation leaves the \
         kernel; a compiler may schedule the kernel differently around them, so the profile is \
         of the instrumented kernel"
            .to_owned()
    }];
    let mut loop_cap = request.loop_cap.max(1);
    if gpu.is_llvmpipe() && loop_cap > LLVMPIPE_LOOP_ITERATIONS - 1 {
        loop_cap = LLVMPIPE_LOOP_ITERATIONS - 1;
        notes.push(format!(
            "llvmpipe ends every loop of an invocation after {LLVMPIPE_LOOP_ITERATIONS} iterations in \
             total, silently, so the loop cap is lowered to {loop_cap} here"
        ));
    }
    let mut options = InstrumentOptions {
        subgroups: gpu.caps.subgroups,
        loop_cap,
        counters_group,
        lanes_block: None,
    };
    let mut instrumented = instrument::instrument(&module, &prepared, &interface.entry, &options)?;
    if let Some(line) = request.lanes_line {
        if !gpu.caps.subgroups {
            return Err(Error::Unsupported {
                what: format!("--lanes {line}"),
                feature: "subgroup operations (a ballot per subgroup)".to_owned(),
            });
        }
        // The blocks are numbered the same on the second pass: record at the line's owner.
        let lines = crate::source_map::SourceMap::new(&request.source).line_count();
        if line == 0 || line as usize > lines {
            return Err(ProfileError::BadLanes {
                line,
                why: format!(
                    "{} has lines 1 to {lines}; name a line with a statement",
                    request.file
                ),
            }
            .into());
        }
        let block =
            report::line_owner(&instrumented, line).ok_or_else(|| ProfileError::BadLanes {
                line,
                why: format!(
                    "{}:{line} has no code the entry point `{}` runs (a comment, a declaration, \
                     or a function it never calls); name a line with a statement",
                    request.file, interface.entry
                ),
            })?;
        options.lanes_block = Some(block);
        instrumented = instrument::instrument(&module, &prepared, &interface.entry, &options)?;
    }
    if !gpu.caps.subgroups {
        notes.push(
            "this adapter has no subgroup operations: executions count invocations, and \
             efficiency and divergence are not measured"
                .to_owned(),
        );
    }
    Ok(Prepared {
        interface,
        instrumented,
        loop_cap,
        notes,
    })
}

/// The kernel's buffers, filled as asked; one per binding of `interface`, in its order.
fn user_buffers(
    gpu: &GpuContext,
    interface: &KernelInterface,
    request: &Request,
) -> Result<Vec<wgpu::Buffer>> {
    use wgpu::util::DeviceExt as _;
    let resolved = fill::resolve(interface, &request.buffers, &request.lens)?;
    let invocations = fill::invocations(interface.workgroup_size, request.dispatch);
    resolved
        .iter()
        .map(|r| {
            let binding = &interface.bindings[r.index];
            let bytes = binding.size.bytes(r.len.unwrap_or(invocations));
            let contents = fill::contents(binding, bytes, &r.fill)?;
            let usage = match binding.access {
                kernel::Access::Uniform => wgpu::BufferUsages::UNIFORM,
                _ => wgpu::BufferUsages::STORAGE,
            } | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST;
            Ok(gpu
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(&binding.name),
                    contents: &contents,
                    usage,
                }))
        })
        .collect()
}

/// A dispatch of `pipeline` with the user's buffers at their own slots and, where given, divlab's
/// own (the counters, then the lane records) at `@group(counters.0) @binding(0, 1, ..)`.
fn dispatch(
    gpu: &GpuContext,
    pipeline: &wgpu::ComputePipeline,
    interface: &KernelInterface,
    buffers: &[wgpu::Buffer],
    counters: Option<(u32, &[&wgpu::Buffer])>,
    workgroups: [u32; 3],
) -> Dispatch {
    let groups = interface
        .bindings
        .iter()
        .map(|b| b.group + 1)
        .chain(counters.map(|(g, _)| g + 1))
        .max()
        .unwrap_or(0);
    let bind_groups = (0..groups)
        .map(|group| {
            let mut entries: Vec<wgpu::BindGroupEntry<'_>> = interface
                .bindings
                .iter()
                .zip(buffers)
                .filter(|(b, _)| b.group == group)
                .map(|(b, buffer)| wgpu::BindGroupEntry {
                    binding: b.binding,
                    resource: buffer.as_entire_binding(),
                })
                .collect();
            if let Some((g, ours)) = counters
                && g == group
            {
                for (binding, buffer) in ours.iter().enumerate() {
                    entries.push(wgpu::BindGroupEntry {
                        binding: binding as u32,
                        resource: buffer.as_entire_binding(),
                    });
                }
            }
            gpu.bind_entries(
                "divlab.profile",
                &pipeline.get_bind_group_layout(group),
                &entries,
            )
        })
        .collect();
    Dispatch {
        pipeline: pipeline.clone(),
        bind_groups,
        workgroups,
    }
}

fn pipeline(
    gpu: &GpuContext,
    file: &str,
    wgsl: &str,
    entry: &str,
    constants: &[(&str, f64)],
) -> Result<wgpu::ComputePipeline> {
    // User kernels keep wgpu's injected guards: nothing about their loops or indices is known.
    let module = compile_wgsl(gpu, file, wgsl, RuntimeChecks::Checked)?;
    gpu.check_cancelled(file)?;
    create_pipeline(gpu, file, &module, entry, constants)
}

/// A finished profile.
#[derive(Debug)]
pub struct Finished {
    /// The profile.
    pub profile: Profile,
    /// Where an invocation ran into the loop cap: what to tell the user (the profile is then of
    /// the cut-short run, and untimed).
    pub cap_hit: Option<String>,
    /// The instrumented kernel's WGSL, as it ran.
    pub instrumented_wgsl: String,
}

/// Profiles `request` on the lab's device.
pub fn profile(lab: &Lab, request: &Request) -> Result<Finished> {
    let gpu = &lab.gpu;
    let prepared = prepare(gpu, request)?;
    let Prepared {
        interface,
        instrumented,
        loop_cap,
        mut notes,
    } = prepared;
    let label = format!("{} (instrumented)", request.file);
    let instrumented_pipeline = pipeline(gpu, &label, &instrumented.wgsl, &interface.entry, &[])?;
    let buffers = user_buffers(gpu, &interface, request)?;
    let counters = crate::gpu::storage_buffer(
        gpu,
        "divlab.profile.counters",
        u64::from(instrumented.counter_words) * 4,
    );
    let lane_buffer = instrumented.options.lanes_block.map(|_| {
        crate::gpu::storage_buffer(
            gpu,
            "divlab.profile.lanes",
            u64::from(1 + instrument::LANE_RECORDS * instrument::LANE_RECORD_WORDS) * 4,
        )
    });
    let ours: Vec<&wgpu::Buffer> = std::iter::once(&counters).chain(&lane_buffer).collect();
    let counted = dispatch(
        gpu,
        &instrumented_pipeline,
        &interface,
        &buffers,
        Some((instrumented.options.counters_group, &ours)),
        request.dispatch,
    );
    gpu.run_batch(&label, std::slice::from_ref(&counted))?;
    let words: Vec<u32> = read_buffer(gpu, &label, &counters)?;
    let lanes = lane_capture(gpu, &label, lane_buffer.as_ref(), request.lanes_line)?;
    let counts = instrumented.read_counters(&words)?;
    let subgroup_size = counts.max_active_lanes.filter(|_| gpu.caps.subgroups);
    let analysis = crate::uniformity::analyze_source(&request.file, &request.source).ok();
    let (lines, branches, cross_checks) = report::lines_and_branches(&Inputs {
        instrumented: &instrumented,
        counters: &counts,
        subgroup_size,
        analysis: analysis.as_ref(),
    });
    let cap_line = counts.cap_hit.map(|l| instrumented.loops[l].line);
    let mut profile = Profile {
        schema_version: PROFILE_SCHEMA_VERSION,
        adapter: adapter_record(lab),
        kernel: KernelRecord {
            file: request.file.clone(),
            entry: interface.entry.clone(),
            workgroup_size: interface.workgroup_size,
            dispatch: request.dispatch,
        },
        subgroup_size,
        control_flow_efficiency: report::control_flow_efficiency(&counts, subgroup_size),
        lines,
        branches,
        loop_cap_hit: cap_line.is_some(),
        loop_cap_line: cap_line,
        loop_cap,
        timing: None,
        notes: Vec::new(),
        lanes,
    };
    if let Some(line) = cap_line {
        let message = format!(
            "{}:{line}: the loop here ran {loop_cap} iterations in one invocation and hit the \
             loop cap; the kernel may never end on this input. The profile below is of the \
             cut-short run; raise the cap with --loop-cap if the loop is meant to run longer",
            request.file
        );
        profile.notes = notes;
        return Ok(Finished {
            profile,
            cap_hit: Some(message),
            instrumented_wgsl: instrumented.wgsl,
        });
    }
    // The kernel ends on this input: time it alone and instrumented, interleaved.
    profile.timing = Some(timing(gpu, request, &interface, &buffers, counted, &label)?);
    notes.extend(cross_checks);
    profile.notes = notes;
    Ok(Finished {
        profile,
        cap_hit: None,
        instrumented_wgsl: instrumented.wgsl,
    })
}

/// What the lanes buffer recorded at `--lanes LINE`, in workgroup and lane order.
fn lane_capture(
    gpu: &GpuContext,
    label: &str,
    buffer: Option<&wgpu::Buffer>,
    line: Option<u32>,
) -> Result<Option<report::LaneCapture>> {
    let (Some(buffer), Some(line)) = (buffer, line) else {
        return Ok(None);
    };
    let lane_words: Vec<u32> = read_buffer(gpu, label, buffer)?;
    let (executions, records) = instrument::read_lanes(&lane_words);
    let mut records: Vec<report::LaneExecution> = records
        .into_iter()
        .map(|r| report::LaneExecution {
            ballot: r.ballot,
            workgroup: r.workgroup,
            first_local_index: r.first_local_index,
        })
        .collect();
    // Subgroups arrive in any order; one subgroup's executions (loop trips) keep theirs.
    records.sort_by_key(|r| {
        let [x, y, z] = r.workgroup;
        (z, y, x, r.first_local_index)
    });
    Ok(Some(report::LaneCapture {
        line,
        executions,
        records,
    }))
}

/// The kernel alone (the user's own source, with their overrides as pipeline constants) and
/// instrumented (`counted`), timed interleaved.
fn timing(
    gpu: &GpuContext,
    request: &Request,
    interface: &KernelInterface,
    buffers: &[wgpu::Buffer],
    counted: Dispatch,
    label: &str,
) -> Result<TimingRecord> {
    let constants: Vec<(&str, f64)> = request
        .overrides
        .iter()
        .map(|(name, value)| (name.as_str(), *value))
        .collect();
    let plain_pipeline = pipeline(
        gpu,
        &request.file,
        &request.source,
        &interface.entry,
        &constants,
    )?;
    let plain = dispatch(
        gpu,
        &plain_pipeline,
        interface,
        buffers,
        None,
        request.dispatch,
    );
    let timer = GpuTimer::new(gpu);
    let reps = request.reps.max(1);
    let samples = timer.interleave(gpu, label, &[plain, counted], reps, &mut |_| {})?;
    let [kernel_ns, instrumented_ns] =
        [0, 1].map(|i| crate::stats::summarize(&samples[i]).map_or(f64::NAN, |s| s.median));
    Ok(TimingRecord {
        kernel_ns,
        instrumented_ns,
        overhead: instrumented_ns / kernel_ns,
        reps,
        source: timer.source(),
    })
}
