//! What to profile and how: the [`Request`], with its defaults, and what a profile document
//! records of it.

use std::path::Path;
use std::time::Duration;

use crate::Result;
use crate::profile::Error as ProfileError;
use crate::profile::fill::{BindingRef, BufferSpec, TextureOptions};
use crate::profile::report::RequestRecord;

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
    /// `--cost`: variant `done` (0 before the first) of `of` made and counted.
    Variants {
        /// Variants finished.
        done: usize,
        /// How many there are.
        of: usize,
    },
    /// The kernel alone runs once from fresh resources, its outputs compared with the
    /// instrumented run's.
    Comparing,
    /// Timed repetition `done` (0 before the first) of at most `of`.
    Timing {
        /// Repetitions finished.
        done: usize,
        /// The most there will be.
        of: usize,
    },
}

/// How the instrumented kernel counts (`--counts`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Counts {
    /// With subgroup operations where the adapter has them: per-subgroup executions, active
    /// lanes, and whether each branch's lanes agreed.
    #[default]
    Subgroups,
    /// Each invocation's passes only, with no subgroup operation in the counters: a lighter
    /// kernel to compile (NVIDIA's compile time follows the subgroup operations, and a kernel
    /// of many small helpers called from loops gets hundreds), without efficiency,
    /// divergence, `--lanes` or `--cost`.
    Invocations,
}

impl Counts {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Counts::Subgroups => "subgroups",
            Counts::Invocations => "invocations",
        }
    }

    /// Every way, the default first.
    pub const ALL: [Counts; 2] = [Counts::Subgroups, Counts::Invocations];

    /// The one named `name` on the command line.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl Stage {
    /// What the profile is doing, in words for a progress line (`time_budget`: the request's
    /// `--time-budget`, which bounds the timing).
    pub fn doing(self, time_budget: Duration) -> String {
        match self {
            Stage::Preparing => "instrumenting and compiling".to_owned(),
            Stage::Counting => "running the instrumented kernel".to_owned(),
            Stage::Comparing => "running the kernel alone to compare its outputs".to_owned(),
            Stage::Variants { done, of } => {
                format!("--cost: variant {} of {of}, counted and compiled", done + 1)
            }
            Stage::Timing { done, of } => format!(
                "timing: {done} runs (at most {of}, within {} s)",
                time_budget.as_secs_f64()
            ),
        }
    }
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
    /// Read every texture back after the counted run, for [`Finished::images`](super::Finished::images) (the app shows
    /// them; the command line saves only what `--save` names).
    pub keep_images: bool,
    /// `--cost` (`--cost-top N`): measure what the N most divergent branches cost.
    pub cost_top: Option<usize>,
    /// `--cost-placements`: the sets of buffers and textures, filled alike, each `--cost`
    /// pair is timed on.
    pub cost_placements: usize,
    /// `--counts`: with subgroup operations (the default), or each invocation's passes only,
    /// a lighter kernel to compile.
    pub counts: Counts,
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
            cost_top: None,
            cost_placements: crate::profile::cost::DEFAULT_COST_PLACEMENTS,
            counts: Counts::Subgroups,
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
            buffers: self.buffers.iter().map(BufferSpec::to_string).collect(),
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
            counts: (self.counts != Counts::Subgroups).then(|| self.counts.name().to_owned()),
            cost_top: self.cost_top,
            cost_placements: self.cost_top.map(|_| self.cost_placements),
        }
    }
}
