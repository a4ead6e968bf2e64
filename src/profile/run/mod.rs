//! Running a profile: the user's buffers, the instrumented dispatch (within the loop cap and the
//! device's timeout), the counters read back, then the kernel timed alone and instrumented.
//! `prepare.rs` checks everything it can before the device runs anything, `bind.rs` makes the
//! resources and dispatches, `timing.rs` times the kernel and reads the lane records.

mod bind;
mod prepare;
mod textures;
mod timing;

use std::path::Path;

use crate::Result;
use crate::bench::adapter_record;
use crate::experiments::Lab;
use crate::gpu::read_buffer;
use crate::profile::Error as ProfileError;
use crate::profile::fill::{
    BindingRef, BufferSpec, FormatSpec, SamplerSpec, SaveSpec, SizeSpec, TextureSpec,
};
use crate::profile::instrument;
use crate::profile::report::{self, Inputs, KernelRecord, PROFILE_SCHEMA_VERSION, Profile};

use self::bind::{dispatch, pipeline, resources};
pub use self::prepare::{Prepared, prepare};
use self::timing::{lane_capture, timing};

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
    /// `--texture NAME=FILL`.
    pub textures: Vec<TextureSpec>,
    /// `--size NAME=W[xH[xD]]`.
    pub sizes: Vec<SizeSpec>,
    /// `--format NAME=FORMAT`.
    pub formats: Vec<FormatSpec>,
    /// `--sampler NAME=FILTER[,ADDRESS]`.
    pub samplers: Vec<SamplerSpec>,
    /// `--save NAME=FILE.png`.
    pub saves: Vec<SaveSpec>,
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
            textures: Vec::new(),
            sizes: Vec::new(),
            formats: Vec::new(),
            samplers: Vec::new(),
            saves: Vec::new(),
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
    // The resources first: a texture format the adapter lacks is then named as such, not as
    // the pipeline's failure to compile.
    let resources = resources(gpu, &interface, request)?;
    notes.extend(textures::describe(&interface, request, &resources.textures));
    let label = format!("{} (instrumented)", request.file);
    let instrumented_pipeline =
        pipeline(gpu, &label, &instrumented.wgsl, &instrumented.entry, &[])?;
    let counters = crate::gpu::storage_buffer(
        gpu,
        "divlab.profile.counters",
        u64::from(instrumented.counter_words) * 4,
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
        &interface,
        &resources,
        Some((instrumented.options.counters_group, &ours)),
        request.dispatch,
    );
    gpu.run_batch(&label, std::slice::from_ref(&counted))?;
    // Before the timed runs write to them again.
    textures::save_textures(
        gpu,
        &interface,
        request,
        &resources.textures,
        &crate::report::write_atomic,
    )?;
    let words: Vec<u32> = read_buffer(gpu, &label, &counters)?;
    let lanes = lane_capture(
        gpu,
        &label,
        lane_buffer.as_ref(),
        request.lanes_line,
        (instrumented.lane_record_words, interface.workgroup_size),
    )?;
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
    profile.timing = Some(timing(
        gpu, request, &interface, &resources, counted, &label,
    )?);
    notes.extend(cross_checks);
    profile.notes = notes;
    Ok(Finished {
        profile,
        cap_hit: None,
        instrumented_wgsl: instrumented.wgsl,
    })
}
