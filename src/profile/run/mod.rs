//! Running a profile: the user's buffers, the instrumented dispatch (within the loop cap and the
//! device's timeout), the counters read back, then the kernel timed alone and instrumented.
//! `prepare.rs` checks everything it can before the device runs anything, `bind.rs` makes the
//! resources and dispatches, `timing.rs` times the kernel and reads the lane records. `cap.rs`
//! words what the user learns about the inputs (where a capped loop's bound comes from, which
//! uniform fields the default fill set), from the trace in `bound.rs` (with `ir.rs`).

mod bind;
mod bound;
mod cap;
mod ir;
mod prepare;
mod textures;
mod timing;

use std::path::Path;
use std::time::Duration;

use crate::Result;
use crate::bench::adapter_record;
use crate::experiments::Lab;
use crate::gpu::read_buffer;
use crate::profile::Error as ProfileError;
use crate::profile::fill::{BindingRef, BufferSpec, TextureOptions};
use crate::profile::instrument;
use crate::profile::report::{
    self, Inputs, KernelRecord, PROFILE_SCHEMA_VERSION, Profile, RequestRecord,
};

use self::bind::{dispatch, pipeline, resources};
pub use self::prepare::{Prepared, prepare};
use self::timing::{lane_capture, timing};

/// The default loop cap: the loop iterations one invocation may run, of all its loops together
/// (nested ones, later ones and those of the functions it calls), before every loop of it
/// breaks out.
pub const DEFAULT_LOOP_CAP: u32 = 1_000_000;

/// The default `--reps`: the most timed repetitions.
pub const DEFAULT_REPS: usize = 15;

/// Timed repetitions that run whatever the time budget (fewer only where `--reps` asks fewer).
pub const MIN_REPS: usize = 3;

/// The default `--time-budget`: how long the timed repetitions may take past the minimum.
pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(5);

/// What a profile is doing, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Parsing, instrumenting, making the resources and the pipelines.
    Preparing,
    /// The instrumented kernel runs once, counting.
    Counting,
    /// Timed repetition `done` (0 before the first) of at most `of`.
    Timing {
        /// Repetitions finished.
        done: usize,
        /// The most there will be.
        of: usize,
    },
}

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
    /// `--texture`, `--size`, `--format`, `--sampler` and `--save`.
    pub textures: TextureOptions,
    /// `--loop-cap`.
    pub loop_cap: u32,
    /// `--reps`: the most timed repetitions of each kernel.
    pub reps: usize,
    /// `--time-budget`: timed repetitions stop once it is spent (after [`MIN_REPS`]).
    pub time_budget: Duration,
    /// `--lanes LINE`: record the ballot of every subgroup execution at this line.
    pub lanes_line: Option<u32>,
    /// Read every texture back after the counted run, for [`Finished::images`] (the app shows
    /// them; the command line saves only what `--save` names).
    pub keep_images: bool,
}

impl Request {
    /// A request for `source` with every default.
    pub fn new(file: impl Into<String>, source: impl Into<String>) -> Self {
        let source: String = source.into();
        Self {
            file: file.into(),
            // Lone CRs as line feeds, so that the report's lines are naga's and an editor's.
            source: crate::shaders::normalize_line_breaks(&source).into_owned(),
            entry: None,
            dispatch: [1, 1, 1],
            buffers: Vec::new(),
            lens: Vec::new(),
            overrides: Vec::new(),
            textures: TextureOptions::default(),
            loop_cap: DEFAULT_LOOP_CAP,
            reps: DEFAULT_REPS,
            time_budget: DEFAULT_TIME_BUDGET,
            lanes_line: None,
            keep_images: false,
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

    /// What the profile document records of the request, each option in the form the command
    /// line takes (`out=random:7`), so that the document says how to run it again.
    pub fn record(&self) -> RequestRecord {
        RequestRecord {
            entry: self.entry.clone(),
            dispatch: self.dispatch,
            buffers: (self.buffers.iter())
                .map(|b| format!("{}={}", b.target, b.fill))
                .collect(),
            lens: self.lens.iter().map(|(b, n)| format!("{b}={n}")).collect(),
            overrides: (self.overrides.iter())
                .map(|(name, v)| format!("{name}={v}"))
                .collect(),
            textures: (self.textures.fills.iter().map(|t| format!("--texture {t}")))
                .chain(self.textures.sizes.iter().map(|t| format!("--size {t}")))
                .chain(
                    self.textures
                        .formats
                        .iter()
                        .map(|t| format!("--format {t}")),
                )
                .chain(
                    self.textures
                        .samplers
                        .iter()
                        .map(|t| format!("--sampler {t}")),
                )
                .chain(self.textures.saves.iter().map(|t| format!("--save {t}")))
                .collect(),
            reps: self.reps,
            time_budget_s: self.time_budget.as_secs_f64(),
            loop_cap: self.loop_cap,
            lanes: self.lanes_line,
        }
    }
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
    /// The width of the pipeline's subgroups, the `subgroup_size` builtin as the instrumented
    /// kernel saw it ([`instrument::Counters::subgroup_width`]); `None` without subgroups.
    pub subgroup_width: Option<u32>,
    /// The textures after the counted run, where [`Request::keep_images`] asked for them.
    pub images: Vec<TextureImage>,
    /// What each buffer (and the immediates) held when the kernel started.
    pub inputs: Vec<InputPreview>,
}

/// A buffer's contents as the kernel started: its fill and its first values.
#[derive(Clone, Debug, PartialEq)]
pub struct InputPreview {
    /// `` `name` (@group(G) @binding(B)) ``, or `` `name` (var<immediate>) ``.
    pub label: String,
    /// Its fill, as `--buffer` writes it, and whether it was the default.
    pub fill: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its first scalars in layout order (at most [`crate::profile::fill::PREVIEW_VALUES`]).
    pub first: Vec<String>,
}

/// Layer 0 of a texture after the counted run: what the kernel wrote, or its input where it
/// only reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureImage {
    /// The variable's name.
    pub name: String,
    /// `` `name` (@group(G) @binding(B)) ``.
    pub label: String,
    /// Whether the kernel can write it (a `write` or `read_write` storage texture).
    pub written: bool,
    /// Width and height.
    pub size: [u32; 2],
    /// 8-bit RGBA, rows top to bottom (other formats converted as `--save` converts them).
    pub rgba: Vec<u8>,
}

impl TextureImage {
    /// The picture as a PNG file's bytes, as `--save` writes it.
    pub fn png(&self) -> Vec<u8> {
        textures::png(self.size, &self.rgba)
    }
}

/// Profiles `request` on the lab's device.
pub fn profile(lab: &Lab, request: &Request) -> Result<Finished> {
    profile_with_progress(lab, request, &mut |_| {})
}

/// [`profile`], telling `on_stage` what it is doing.
pub fn profile_with_progress(
    lab: &Lab,
    request: &Request,
    on_stage: &mut dyn FnMut(Stage),
) -> Result<Finished> {
    let gpu = &lab.gpu;
    on_stage(Stage::Preparing);
    let prepared = prepare(gpu, request)?;
    let Prepared {
        interface,
        instrumented,
        loop_cap,
        mut notes,
    } = prepared;
    // The resources first: a texture format the adapter lacks is then named as such, not as
    // the pipeline's failure to compile.
    let resources = resources(gpu, &interface, request)?;
    notes.extend(textures::describe(&interface, request, &resources.textures));
    notes.extend(cap::default_notes(request, &interface));
    notes.extend(crate::profile::fill::file_notes(
        &interface,
        &request.buffers,
        &request.lens,
        request.dispatch,
    ));
    let label = format!("{} (instrumented)", request.file);
    on_stage(Stage::Counting);
    let (counted, counts, lanes) =
        counted_run(gpu, request, &interface, &instrumented, &resources, &label)?;
    let images = if request.keep_images {
        textures::images(gpu, &interface, &resources.textures)?
    } else {
        Vec::new()
    };
    let widest_ballot = counts.max_active_lanes.filter(|_| gpu.caps.subgroups);
    // Efficiency is against the width the pipeline runs with (the `subgroup_size` builtin), so
    // a workgroup smaller than a subgroup shows the lanes it leaves empty.
    let subgroup_size = counts.subgroup_width.filter(|_| gpu.caps.subgroups);
    let analysis = crate::uniformity::analyze_source(&request.file, &request.source).ok();
    notes.extend(analysis.as_ref().and_then(uniformity_note));
    let inputs = Inputs {
        instrumented: &instrumented,
        counters: &counts,
        subgroup_size,
        widest_ballot,
        workgroup_size: interface.workgroup_size,
        analysis: analysis.as_ref(),
    };
    let (lines, branches, cross_checks) = report::lines_and_branches(&inputs);
    notes.extend(report::width_note(interface.workgroup_size, subgroup_size));
    notes.extend(entry_check(
        &instrumented,
        &counts,
        &interface,
        request.dispatch,
    ));
    let control_flow_efficiency = report::control_flow_efficiency(&counts, subgroup_size);
    let branch_efficiency = report::branch_efficiency(&branches);
    let cap_line = counts.cap_hit.map(|l| instrumented.loops[l].line);
    let mut profile = Profile {
        schema_version: PROFILE_SCHEMA_VERSION,
        divlab_version: crate::report::build::version_record(),
        created: report::created_now(),
        adapter: adapter_record(lab),
        kernel: KernelRecord {
            file: request.file.clone(),
            entry: interface.entry.clone(),
            workgroup_size: interface.workgroup_size,
            dispatch: request.dispatch,
        },
        request: request.record(),
        source: Some(request.source.clone()),
        subgroup_size,
        widest_ballot,
        control_flow_efficiency,
        branch_efficiency,
        lines,
        branches,
        loop_cap_hit: cap_line.is_some(),
        loop_cap_line: cap_line,
        loop_cap,
        timing: None,
        notes: Vec::new(),
        lanes,
    };
    if let Some(lp) = counts.cap_hit {
        let message = cap::message(request, &interface, &instrumented.loops[lp], loop_cap);
        profile.notes = notes;
        return Ok(Finished {
            profile,
            cap_hit: Some(message),
            instrumented_wgsl: instrumented.wgsl,
            subgroup_width: counts.subgroup_width,
            images,
            inputs: resources.inputs,
        });
    }
    // The kernel ends on this input: time it alone and instrumented, interleaved.
    profile.timing = Some(timing(
        gpu, request, &interface, &resources, counted, &label, on_stage,
    )?);
    notes.extend(cross_checks);
    profile.notes = notes;
    Ok(Finished {
        profile,
        cap_hit: None,
        instrumented_wgsl: instrumented.wgsl,
        subgroup_width: counts.subgroup_width,
        images,
        inputs: resources.inputs,
    })
}

/// The instrumented dispatch, run once: its counters and lane records read back, and the
/// storage textures `--save` names written before the timed runs change them again.
fn counted_run(
    gpu: &crate::gpu::GpuContext,
    request: &Request,
    interface: &crate::profile::kernel::KernelInterface,
    instrumented: &instrument::Instrumented,
    resources: &bind::Resources,
    label: &str,
) -> Result<(
    crate::gpu::Dispatch,
    instrument::Counters,
    Option<report::LaneCapture>,
)> {
    let instrumented_pipeline = pipeline(gpu, label, &instrumented.wgsl, &instrumented.entry, &[])?;
    let counters = crate::gpu::storage_buffer(
        gpu,
        "divlab.profile.counters",
        u64::from(instrumented.buffer_words) * 4,
    );
    let lane_buffer = instrumented.options.lanes_block.map(|_| {
        crate::gpu::storage_buffer(
            gpu,
            "divlab.profile.lanes",
            u64::from(1 + instrument::LANE_RECORDS * instrumented.lane_record_words) * 4,
        )
    });
    let ours: Vec<&wgpu::Buffer> = std::iter::once(&counters).chain(&lane_buffer).collect();
    let counted = dispatch(
        gpu,
        &instrumented_pipeline,
        interface,
        resources,
        Some((instrumented.options.counters_group, &ours)),
        request.dispatch,
    );
    gpu.run_batch(label, std::slice::from_ref(&counted))?;
    // Before the timed runs write to them again.
    textures::save_textures(
        gpu,
        interface,
        request,
        &resources.textures,
        &crate::report::write_atomic,
    )?;
    let words: Vec<u32> = read_buffer(gpu, label, &counters)?;
    let lanes = lane_capture(
        gpu,
        label,
        lane_buffer.as_ref(),
        request.lanes_line,
        (instrumented.lane_record_words, interface.workgroup_size),
    )?;
    let counts = instrumented.read_counters(&words)?;
    Ok((counted, counts, lanes))
}

/// A note where the entry point's executions are not what the dispatch makes: one per subgroup
/// (`ceil(workgroup invocations / subgroup width)` a workgroup), or one per invocation without
/// subgroups. A driver that ran only part of the dispatch (or wrapped its count) would otherwise
/// show counts that look right and are not.
fn entry_check(
    instrumented: &instrument::Instrumented,
    counts: &instrument::Counters,
    interface: &crate::profile::kernel::KernelInterface,
    dispatch: [u32; 3],
) -> Option<String> {
    let entry = instrumented.blocks.iter().position(|b| {
        b.kind == instrument::BlockKind::FunctionBody && b.function == interface.entry
    })?;
    let ran = counts.blocks[entry].executions;
    let workgroups: u64 = dispatch.iter().map(|&n| u64::from(n)).product();
    let invocations: u64 = interface
        .workgroup_size
        .iter()
        .map(|&n| u64::from(n))
        .product();
    let (expected, unit) = match counts.subgroup_width {
        Some(width) => (
            workgroups * invocations.div_ceil(u64::from(width.max(1))),
            format!("subgroups of {width} lanes"),
        ),
        None => (workgroups * invocations, "invocations".to_owned()),
    };
    (ran != expected).then(|| {
        let part = if ran < expected {
            "only part of the dispatch, so every count here is of that part"
        } else {
            "more than the dispatch, so the counts are not of it alone"
        };
        format!(
            "the entry point `{}` ran {ran} times, but {workgroups} workgroups of {invocations} \
             invocations make {expected} {unit}: the driver ran {part}; check the device with \
             fewer workgroups",
            interface.entry,
        )
    })
}

/// A note where WGSL's uniformity rules reject the kernel: a WebGPU implementation (Chrome,
/// Firefox, Safari) would refuse to compile it, and the device ran what naga let through.
fn uniformity_note(analysis: &crate::uniformity::Analysis) -> Option<String> {
    use crate::uniformity::Severity;
    let errors: Vec<_> = (analysis.diagnostics.iter())
        .filter(|d| d.severity == Severity::Error)
        .collect();
    let first = errors.first()?;
    Some(format!(
        "WGSL's uniformity rules reject this kernel ({} error{}, the first at line {}: {}): a \
         browser's WebGPU would not compile it, and naga let it through, so this profile is of \
         a kernel that is not portable; `divlab uniformity {}` explains each",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" },
        first.line,
        first.message,
        analysis.file,
    ))
}
