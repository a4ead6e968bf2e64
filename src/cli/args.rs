//! `divlab`'s arguments (clap): the commands, their options, and `--help`'s closing text.

use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand};
use divlab::gpu::BackendChoice;
use divlab::{fuzz, profile};

/// `--help`'s closing part: the exit codes (docs/exit-codes.md has the same table) and the
/// environment variables divlab reads.
pub(crate) const AFTER_HELP: &str = "\
Exit codes (docs/exit-codes.md):
  0  success
  1  a result to act on: a verdict `violated` or an experiment `error` (bench); a loop hit the
     cap (profile); an error-level diagnostic (uniformity); a change fails the gate
     (compare --fail-on); a program mismatched (fuzz --fail-on-mismatch)
  2  usage or setup error: bad arguments, no adapter, an unreadable or invalid file
  3  the GPU timed out, the device was lost, or the driver faulted (bench, profile, fuzz)
  4  a divlab bug: the instrumented kernel does not validate or its counters do not decode
     (profile); please report it with the kernel

Environment:
  WGPU_BACKEND        default for --backend (vulkan, metal, dx12, gl)
  WGPU_ADAPTER_NAME   default for --adapter
  DIVLAB_OPEN         files the app opens at start, separated like PATH
  DIVLAB_RESULTS_DIR  where the app autosaves run documents
  DIVLAB_FILE_DIALOG  the app's file dialog: native or prompt
  Other WGPU_* variables configure wgpu's instance (WGPU_VALIDATION, WGPU_DEBUG, ...).

Documents: --json FILE, --csv FILE and --markdown FILE write FILE atomically; `-` writes to
stdout (the human summary then goes to stderr). Guide: docs/README.md";

#[derive(Parser, Debug)]
#[command(
    name = "divlab",
    version,
    long_version = divlab::report::build::LONG_VERSION,
    about = "A portable GPU divergence lab",
    long_about = "A portable GPU divergence lab. With no command, divlab opens the desktop app, \
                  with any result (.json) or kernel (.wgsl) files named.",
    after_help = AFTER_HELP
)]
pub(crate) struct Cli {
    /// Result documents (.json) or kernels (.wgsl) for the app to open, as if dropped on its
    /// window.
    #[arg(value_name = "FILE", value_parser = parse_app_file)]
    pub(crate) open: Vec<PathBuf>,
    /// Backend: vulkan, metal, dx12 or gl.
    #[arg(long, global = true, env = "WGPU_BACKEND", value_parser = parse_backend)]
    pub(crate) backend: Option<BackendChoice>,
    /// Adapter: an index from `divlab adapters`, or a name substring.
    #[arg(long, global = true, env = "WGPU_ADAPTER_NAME")]
    pub(crate) adapter: Option<String>,
    /// How long one GPU step (a compile, a dispatch, a readback) of `bench`, `profile` or `fuzz`
    /// may take: past it divlab gives up on the device at once and exits 3 (`90s`, `5m`; a
    /// plain number is seconds).
    #[arg(long, global = true, value_name = "DURATION", default_value = "60s", value_parser = parse_timeout)]
    pub(crate) timeout: std::time::Duration,
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

/// A file for the app: `.json` or `.wgsl`. Anything else is more likely a mistyped command.
fn parse_app_file(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_lowercase);
    match extension.as_deref() {
        Some("json" | "wgsl") => Ok(path),
        _ => {
            let hint = closest_command(s).map_or_else(
                || " (`divlab --help` lists the commands)".to_owned(),
                |name| format!(": did you mean `divlab {name}`?"),
            );
            Err(format!(
                "`{s}` is neither a command nor a result (.json) or kernel (.wgsl) file for \
                 the app to open{hint}"
            ))
        }
    }
}

/// The command `typed` most looks like: the fewest edits away (a swap of two letters is one),
/// and at most a third of the command's letters (at least one). clap's own measure (Jaro above
/// 0.7) offered `fuzz` for `zzz`.
fn closest_command(typed: &str) -> Option<String> {
    let command = Cli::command();
    (command.get_subcommands())
        .map(|c| c.get_name())
        .map(|name| (strsim::damerau_levenshtein(name, typed), name))
        .filter(|&(edits, name)| edits <= (name.chars().count() / 3).max(1))
        .min_by_key(|&(edits, _)| edits)
        .map(|(_, name)| name.to_owned())
}

/// Where a document goes: a file, written atomically, or stdout (`-`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    Stdout,
    File(PathBuf),
}

impl Output {
    pub(crate) fn parse(s: &str) -> Result<Self, String> {
        match s {
            "" => Err("an empty path; give a file name, or `-` for stdout".to_owned()),
            "-" => Ok(Self::Stdout),
            path => Ok(Self::File(PathBuf::from(path))),
        }
    }

    /// How many of `outputs` go to stdout.
    pub(crate) fn count_stdout(outputs: &[&Option<Self>]) -> usize {
        outputs
            .iter()
            .filter(|o| matches!(o, Some(Self::Stdout)))
            .count()
    }
}

/// `divlab bench`'s options (also `divlab --bench`).
#[derive(clap::Args, Debug)]
pub(crate) struct BenchArgs {
    /// Write the result document as JSON to FILE (`-`: stdout); docs/results.md.
    #[arg(long, value_name = "FILE", value_parser = Output::parse)]
    pub(crate) json: Option<Output>,
    /// Write the long export as CSV to FILE (`-`: stdout): one row per metric and verdict,
    /// each naming the device and the run (docs/results.md), as `compare --long` writes it.
    #[arg(long, value_name = "FILE", value_parser = Output::parse)]
    pub(crate) csv: Option<Output>,
    /// Fewer repetitions and smaller sweeps.
    #[arg(long)]
    pub(crate) quick: bool,
    /// Timed repetitions per configuration (default 15, 5 with --quick; at least 2).
    #[arg(long, value_name = "N")]
    pub(crate) reps: Option<usize>,
    /// Seeds per style in the bench's reconvergence-fuzzer batch (default 24, 8 with --quick).
    #[arg(long, value_name = "N")]
    pub(crate) fuzz_seeds: Option<u64>,
    /// Run only experiments whose id contains this substring.
    #[arg(long, value_name = "ID")]
    pub(crate) only: Option<String>,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Run every registered experiment headless and print a summary. `divlab --bench` is the
    /// same command.
    #[command(long_flag = "bench")]
    Bench(BenchArgs),
    /// List every adapter on every backend; `*` marks the one divlab uses by default.
    Adapters {
        /// Write every adapter as JSON to FILE (`-`: stdout, instead of the table): the full
        /// driver string, vendor and device ids, subgroup sizes, compute and buffer limits,
        /// features (docs/results.md#other-documents).
        #[arg(long, value_name = "FILE", value_parser = Output::parse)]
        json: Option<Output>,
    },
    /// Generate random structured programs, run them, and compare every ballot with the
    /// maximal-reconvergence simulation; failing programs are shrunk into reproducers.
    Fuzz {
        /// How many seeds (each runs once per style).
        #[arg(long, default_value_t = 100)]
        seeds: u64,
        /// The first seed.
        #[arg(long, default_value_t = 0)]
        start: u64,
        /// Which ballots are checked.
        #[arg(long, value_enum, default_value_t = StyleChoice::All)]
        style: StyleChoice,
        /// Program size and nesting.
        #[arg(long, value_enum, default_value_t = fuzz::Size::Medium)]
        size: fuzz::Size,
        /// Write each failure's shrunk reproducer to DIR/<seed>/<style>/.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Exit 1 when any program's ballots or control flow mismatched the simulation.
        #[arg(long)]
        fail_on_mismatch: bool,
        /// Write the pass rates, failing seeds and reproducers as JSON to FILE (`-`: stdout,
        /// and the table goes to stderr).
        #[arg(long, value_name = "FILE", value_parser = Output::parse)]
        json: Option<Output>,
    },
    /// Print a Markdown table of the divergence study's key figures from result files.
    Table {
        /// Result documents written by `divlab bench --json`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the table to FILE instead of stdout (`-`: stdout).
        #[arg(long, value_name = "FILE", value_parser = Output::parse)]
        markdown: Option<Output>,
    },
    /// Compare result files side by side: key figures, verdicts and observations per experiment.
    /// The text tables go to stdout unless a document does.
    Compare(CompareArgs),
    /// Write one self-contained HTML report (SVG charts, verdict tables) over result files.
    Report {
        /// Result documents written by `divlab bench --json`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The HTML file to write (atomically; `-`: stdout).
        #[arg(short, long, value_name = "FILE", value_parser = Output::parse)]
        output: Output,
    },
    /// Profile any WGSL compute kernel: per line, how many subgroup executions ran it with how
    /// many lanes, which branches diverged, and the static uniformity verdict beside it. The
    /// kernel is instrumented on naga's IR; every loop gets a cap, so no kernel can hang the GPU.
    /// What the instrumented kernel wrote is checked against a run of the kernel alone. Exit
    /// code 1 when a loop hit the cap.
    Profile(Box<ProfileArgs>),
    /// Static uniformity analysis of WGSL by the WGSL spec's rules, as a linter: diagnostics
    /// with reasons, for files, directories and stdin, as text, JSON, rustc's JSON, SARIF or
    /// GitHub annotations.
    #[command(after_help = divlab::uniformity::lint::AFTER_HELP)]
    Uniformity(divlab::uniformity::lint::Args),
    /// Print a shell completion script: `divlab completions bash > ~/.local/share/bash-completion/completions/divlab`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print divlab's man page (roff): `divlab man | man -l -`; with --dir, write every page.
    Man {
        /// Write divlab.1 and a page per subcommand (divlab-bench.1, ...) into DIR, made if
        /// missing, instead of printing divlab.1.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Print the JSON Schema (draft 2020-12) of a document divlab writes, generated from the
    /// types that read and write it; schemas/ in the repository holds the same files, and each
    /// document names its schema's `$id` in `$schema`.
    Schema {
        /// `result` (bench --json), `profile` (profile --json) or `uniformity`
        /// (uniformity --json).
        #[arg(value_enum)]
        kind: divlab::schemas::Kind,
    },
}

/// `--style`: one style, or all three.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum StyleChoice {
    Maximal,
    Subgroup,
    Workgroup,
    All,
}

impl StyleChoice {
    pub(crate) fn styles(self) -> Vec<fuzz::Style> {
        match self {
            StyleChoice::Maximal => vec![fuzz::Style::Maximal],
            StyleChoice::Subgroup => vec![fuzz::Style::Subgroup],
            StyleChoice::Workgroup => vec![fuzz::Style::Workgroup],
            StyleChoice::All => fuzz::Style::ALL.to_vec(),
        }
    }
}

/// Parses a count from `min` to `max`; out of range, the message gives the range (clap's says
/// only "number too large to fit in target type").
fn whole_number(s: &str, min: u64, max: u64) -> Result<u64, String> {
    let range = format!("give a whole number from {min} to {max}");
    let n: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("not a whole number in range; {range}"))?;
    if n < min || n > max {
        return Err(format!("out of range; {range}"));
    }
    Ok(n)
}

/// Parses `--timeout`: a duration (`90s`, `5m`, `1m 30s`) or a number of seconds, above zero.
fn parse_timeout(s: &str) -> Result<std::time::Duration, String> {
    let parsed = match s.trim().parse::<u64>() {
        Ok(seconds) => Ok(std::time::Duration::from_secs(seconds)),
        Err(_) => humantime::parse_duration(s.trim()).map_err(|e| {
            format!("{e}; give a duration such as `90s` or `5m`, or a number of seconds")
        }),
    }?;
    if parsed.is_zero() {
        return Err("a zero timeout would give up at once; give at least 1s".to_owned());
    }
    Ok(parsed)
}

pub(crate) fn parse_backend(s: &str) -> Result<BackendChoice, String> {
    BackendChoice::parse(s).map_err(|e| e.to_string())
}

/// `divlab compare`'s options.
#[derive(clap::Args, Debug)]
pub(crate) struct CompareArgs {
    /// Result documents written by `divlab bench --json`, one column each.
    #[arg(required_unless_present = "baseline")]
    pub(crate) files: Vec<PathBuf>,
    /// Compare the other files against this one: it is the first column, and with --fail-on
    /// only a change from it counts (otherwise a change between any two files does).
    #[arg(long, value_name = "FILE")]
    pub(crate) baseline: Option<PathBuf>,
    /// Write the long export to FILE (`-`: stdout): one row per device, experiment and metric
    /// or verdict, each naming its device and run (docs/results.md), for any number of files.
    #[arg(long, value_name = "FILE", value_parser = Output::parse)]
    pub(crate) long: Option<Output>,
    /// Write Markdown tables (bold where a verdict differs) to FILE (`-`: stdout).
    #[arg(long, value_name = "FILE", value_parser = Output::parse)]
    pub(crate) markdown: Option<Output>,
    /// Write CSV (one row per table row keyed by stable ids, one column per file, numbers in
    /// full; docs/compare.md) to FILE (`-`: stdout).
    #[arg(long, value_name = "FILE", value_parser = Output::parse)]
    pub(crate) csv: Option<Output>,
    /// Write the text tables to FILE instead of stdout (`-`: stdout).
    #[arg(short, long, value_name = "FILE", value_parser = Output::parse)]
    pub(crate) output: Option<Output>,
    /// Exit 1 when a change of this level is found (from the baseline, with --baseline), so
    /// that a comparison can gate CI: `guarantee` (a verdict moved to or from held or
    /// violated), `model` (also consistent <-> inconsistent) or `any` verdict; a move to or from
    /// inconclusive never counts, and an experiment's status change always does.
    #[arg(long, value_name = "LEVEL", value_enum)]
    pub(crate) fail_on: Option<divlab::report::FailOn>,
    /// With --fail-on: a key figure that moves by more than this (`10%`) counts as a change too,
    /// unless both files' 95% intervals for it overlap (noise: named in a note); the CV is
    /// never gated.
    #[arg(long, value_name = "PERCENT", value_parser = divlab::report::parse_threshold)]
    pub(crate) threshold: Option<f64>,
    /// The same as `--fail-on any` (kept for older scripts).
    #[arg(long, conflicts_with = "fail_on")]
    pub(crate) fail_on_difference: bool,
}

/// The options of `divlab profile` that only a run takes: `--import` refuses them.
const RUN_OPTIONS: [&str; 19] = [
    "file",
    "entry",
    "dispatch",
    "buffers",
    "lens",
    "overrides",
    "textures",
    "sizes",
    "formats",
    "samplers",
    "saves",
    "loop_cap",
    "profile_reps",
    "time_budget",
    "lanes",
    "counts",
    "cost",
    "cost_top",
    "cost_placements",
];

/// `divlab profile`'s options.
#[derive(clap::Args, Debug)]
pub(crate) struct ProfileArgs {
    /// The WGSL file (not with --import).
    #[arg(required_unless_present = "import")]
    pub(crate) file: Option<PathBuf>,
    /// The compute entry point (default: the only one).
    #[arg(long, value_name = "NAME")]
    pub(crate) entry: Option<String>,
    /// Workgroups to dispatch: X[,Y[,Z]].
    #[arg(long, value_name = "X[,Y[,Z]]", default_value = "1", value_parser = profile::fill::parse_dispatch)]
    pub(crate) dispatch: [u32; 3],
    /// A binding's contents: BINDING (name or GROUP:BINDING) = zeros, iota,
    /// random[:SEED], values:V1,V2,... (in layout order) or file:PATH. Default: random, except
    /// that a uniform buffer's integer fields, and a scalar a loop counts up to, hold the
    /// dispatch's invocations, and a buffer whose elements a loop counts up to holds 0 to 7
    /// in each (the notes say which). Or one scalar
    /// over that fill, by its WGSL path: BINDING.PLACE=NUMBER (`params.count=64`,
    /// `lights.dims.x=16`, `data[3]=0`), or each scalar under a place:
    /// BINDING.PLACE=values:V1,V2,... (`lights.dims=values:16,9,24`).
    #[arg(long = "buffer", value_name = "BINDING=FILL", value_parser = |s: &str| s.parse::<profile::fill::BufferSpec>())]
    pub(crate) buffers: Vec<profile::fill::BufferSpec>,
    /// Elements of a runtime-sized array (default: one per invocation of the dispatch).
    #[arg(long = "len", value_name = "BINDING=N", value_parser = profile::fill::parse_len)]
    pub(crate) lens: Vec<(profile::fill::BindingRef, u64)>,
    /// A pipeline-overridable constant.
    #[arg(long = "override", value_name = "NAME=VALUE", value_parser = profile::fill::parse_override)]
    pub(crate) overrides: Vec<(String, f64)>,
    /// A texture's contents: the FILLs of --buffer (random is the default; a write-only
    /// storage texture starts as zeros), or gradient, checker[:N] (N×N cells, 8 by default),
    /// file:IMAGE.png (the image, at its size).
    #[arg(long = "texture", value_name = "NAME=FILL", value_parser = |s: &str| s.parse::<profile::fill::TextureSpec>())]
    pub(crate) textures: Vec<profile::fill::TextureSpec>,
    /// A texture's size: W, WxH, WxHxD (3-D) or WxHxLAYERS (arrays); default: the dispatch's
    /// invocations along x, y (and z).
    #[arg(long = "size", value_name = "NAME=W[xH[xD]]", value_parser = |s: &str| s.parse::<profile::fill::SizeSpec>())]
    pub(crate) sizes: Vec<profile::fill::SizeSpec>,
    /// A sampled texture's format (rgba8unorm for f32 texels, rgba32uint/rgba32sint for
    /// integers, depth16unorm for depth; a storage texture's is in its type).
    #[arg(long = "format", value_name = "NAME=FORMAT", value_parser = |s: &str| s.parse::<profile::fill::FormatSpec>())]
    pub(crate) formats: Vec<profile::fill::FormatSpec>,
    /// How a sampler reads: linear|nearest[,clamp|repeat|mirror] (default linear,clamp;
    /// comparison samplers compare less-equal).
    #[arg(long = "sampler", value_name = "NAME=MODE", value_parser = |s: &str| s.parse::<profile::fill::SamplerSpec>())]
    pub(crate) samplers: Vec<profile::fill::SamplerSpec>,
    /// After the run, write what the kernel left in a storage texture (layer 0) as PNG.
    #[arg(long = "save", value_name = "NAME=FILE.png", value_parser = |s: &str| s.parse::<profile::fill::SaveSpec>())]
    pub(crate) saves: Vec<profile::fill::SaveSpec>,
    /// The most loop iterations one invocation may run, of all its loops together (a note
    /// says where divlab holds it lower: on llvmpipe, or where a count could wrap).
    #[arg(long, value_name = "N", default_value_t = profile::run::DEFAULT_LOOP_CAP, value_parser = |s: &str| whole_number(s, 1, u32::MAX.into()).map(|n| n as u32))]
    pub(crate) loop_cap: u32,
    /// The most timed runs of the kernel alone and instrumented (medians; ≥ 1).
    #[arg(long = "reps", value_name = "N", default_value_t = profile::run::DEFAULT_REPS, value_parser = |s: &str| whole_number(s, 1, 1_000_000).map(|n| n as usize))]
    pub(crate) profile_reps: usize,
    /// Seconds the timed runs may take: at least 3 run (or --reps, if fewer), and no more
    /// start once the budget is spent.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = parse_time_budget, allow_negative_numbers = true)]
    pub(crate) time_budget: std::time::Duration,
    /// Write the profile as JSON to FILE (`-`: stdout; docs/profile.md).
    #[arg(long = "json", value_name = "FILE", value_parser = Output::parse)]
    pub(crate) profile_json: Option<Output>,
    /// Write the profile as CSV to FILE (`-`: stdout): a kernel row, one row per line and one
    /// per branch (docs/profile.md).
    #[arg(long, value_name = "FILE", value_parser = Output::parse)]
    pub(crate) csv: Option<Output>,
    /// Leave the kernel's source text out of the --json and --csv documents.
    #[arg(long)]
    pub(crate) no_source: bool,
    /// Write the instrumented WGSL that ran to FILE (`-`: stdout).
    #[arg(long, value_name = "FILE", value_parser = Output::parse)]
    pub(crate) emit_instrumented: Option<Output>,
    /// Record the ballot of every subgroup execution at LINE (the lanes that ran it
    /// together), into the output and the JSON.
    #[arg(long, value_name = "LINE")]
    pub(crate) lanes: Option<u32>,
    /// How the counters count: `subgroups` (per-subgroup executions, active lanes, divergence)
    /// or `invocations` (each invocation's passes only, with no subgroup operation: a lighter
    /// kernel to compile, for one whose instrumented compile takes minutes; no efficiency,
    /// divergence, --lanes or --cost).
    #[arg(long, value_name = "HOW", default_value = "subgroups", value_parser = parse_counts())]
    pub(crate) counts: profile::run::Counts,
    /// Measure what each divergent branch costs on this adapter: the kernel timed against a
    /// variant in which the branch's subgroups follow their first active lane (for a `&&`/`||`
    /// clause, one in which every lane evaluates the next clause, as `&`/`|` would), with a 95%
    /// interval and a verdict (serialized, free_here, confounded, not_divergent).
    #[arg(long)]
    pub(crate) cost: bool,
    /// With --cost: how many divergent branches get a variant, those with the most idle lane
    /// slots first (one that cannot have a variant, such as a second `if` on its line, takes
    /// no place).
    #[arg(long, value_name = "N", requires = "cost", default_value_t = profile::cost::DEFAULT_COST_TOP, value_parser = |s: &str| whole_number(s, 1, 64).map(|n| n as usize))]
    pub(crate) cost_top: usize,
    /// With --cost: on how many sets of the kernel's buffers and textures, filled alike, each
    /// variant is timed. Where the buffers lie moves a small saving (a few steps of NVIDIA's
    /// 32 ns timer): the interval spans the sets, and a saving only some sets show is not
    /// called. 1 times on one, for inputs too large to hold several times, and then calls no
    /// saving under 11 steps of a coarse timer.
    #[arg(long, value_name = "N", requires = "cost", default_value_t = profile::cost::DEFAULT_COST_PLACEMENTS, value_parser = |s: &str| whole_number(s, 1, profile::cost::MAX_COST_PLACEMENTS as u64).map(|n| n as usize))]
    pub(crate) cost_placements: usize,
    /// Print the report of a profile document (`--json`'s) again, without a GPU; --json and
    /// --csv write it again.
    #[arg(long, value_name = "FILE", conflicts_with_all = RUN_OPTIONS, conflicts_with = "emit_instrumented")]
    pub(crate) import: Option<PathBuf>,
}

impl ProfileArgs {
    /// The request these options make, with the kernel read from its file (`None` with
    /// --import, which needs none).
    pub(crate) fn request(&self) -> Option<divlab::Result<profile::run::Request>> {
        let file = self.file.as_ref()?;
        Some(self.request_for(file))
    }

    fn request_for(&self, file: &std::path::Path) -> divlab::Result<profile::run::Request> {
        // A FIFO would block the read, a device never end.
        divlab::user_file::check_regular(file).map_err(|e| profile::Error::ReadKernel {
            path: file.to_owned(),
            reason: e.to_string(),
        })?;
        let mut request = profile::run::Request::from_file(file)?;
        request.entry = self.entry.clone();
        request.dispatch = self.dispatch;
        request.buffers = self.buffers.clone();
        request.lens = self.lens.clone();
        request.overrides = self.overrides.clone();
        request.textures = profile::fill::TextureOptions {
            fills: self.textures.clone(),
            sizes: self.sizes.clone(),
            formats: self.formats.clone(),
            samplers: self.samplers.clone(),
            saves: self.saves.clone(),
        };
        request.loop_cap = self.loop_cap;
        request.reps = self.profile_reps;
        request.time_budget = self.time_budget;
        request.lanes_line = self.lanes;
        request.counts = self.counts;
        request.cost_top = self.cost.then_some(self.cost_top);
        request.cost_placements = self.cost_placements;
        Ok(request)
    }
}

/// Parses `--counts HOW`: one of the ways' names, which `--help` lists.
fn parse_counts() -> impl clap::builder::TypedValueParser<Value = profile::run::Counts> {
    use clap::builder::TypedValueParser as _;
    use profile::run::Counts;
    clap::builder::PossibleValuesParser::new(Counts::ALL.map(Counts::name))
        .map(|name| Counts::named(&name).expect("a possible value names a way"))
}

/// Parses `--time-budget SECONDS`: a finite number of seconds above zero.
fn parse_time_budget(s: &str) -> Result<std::time::Duration, String> {
    let bad = || format!("`{s}` is not a time budget: give seconds above zero (e.g. `5` or `0.5`)");
    let seconds: f64 = s.trim().parse().map_err(|_| bad())?;
    if seconds.is_nan() || seconds <= 0.0 {
        return Err(bad());
    }
    std::time::Duration::try_from_secs_f64(seconds).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::closest_command;

    #[test]
    fn a_mistyped_command_is_suggested_and_a_stranger_is_not() {
        for (typed, want) in [
            ("bnech", Some("bench")),
            ("reprot", Some("report")),
            ("fuz", Some("fuzz")),
            ("uniformty", Some("uniformity")),
            ("zzz", None),
            ("data", None),
        ] {
            assert_eq!(closest_command(typed).as_deref(), want, "{typed}");
        }
    }
}
