//! The `divlab` command line. It parses arguments and calls the library; nothing else.
//!
//! Exit codes: the one table is docs/exit-codes.md, and `divlab --help` prints it (`AFTER_HELP`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{CommandFactory as _, Parser, Subcommand};
use divlab::bench::{BenchConfig, BenchEvent, run_bench};
use divlab::experiments::{Lab, RunConfig};
use divlab::fuzz;
use divlab::gpu::{AdapterSelector, BackendChoice, GpuContext, adapters};
use divlab::profile;
use divlab::report::{csv_bytes, json_bytes, markdown_key_table, read_json, summary_table};

/// `--help`'s closing part: the exit codes (docs/exit-codes.md has the same table) and the
/// environment variables divlab reads.
const AFTER_HELP: &str = "\
Exit codes (docs/exit-codes.md):
  0  success
  1  a result to act on: a verdict `violated` or an experiment `error` (bench); a loop hit the
     cap (profile); an error-level diagnostic (uniformity); a verdict differs
     (compare --fail-on-difference); a program mismatched (fuzz --fail-on-mismatch)
  2  usage or setup error: bad arguments, no adapter, an unreadable or invalid file
  3  the GPU timed out or the device was lost (bench, profile)

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
    long_about = "A portable GPU divergence lab. With no command, divlab opens the desktop app.",
    after_help = AFTER_HELP
)]
struct Cli {
    /// Backend: vulkan, metal, dx12 or gl.
    #[arg(long, global = true, env = "WGPU_BACKEND", value_parser = parse_backend)]
    backend: Option<BackendChoice>,
    /// Adapter: an index from `divlab adapters`, or a name substring.
    #[arg(long, global = true, env = "WGPU_ADAPTER_NAME")]
    adapter: Option<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

/// Where a document goes: a file, written atomically, or stdout (`-`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Output {
    Stdout,
    File(PathBuf),
}

impl Output {
    fn parse(s: &str) -> Result<Self, String> {
        match s {
            "" => Err("an empty path; give a file name, or `-` for stdout".to_owned()),
            "-" => Ok(Self::Stdout),
            path => Ok(Self::File(PathBuf::from(path))),
        }
    }

    /// How many of `outputs` go to stdout.
    fn count_stdout(outputs: &[&Option<Self>]) -> usize {
        outputs
            .iter()
            .filter(|o| matches!(o, Some(Self::Stdout)))
            .count()
    }
}

/// `divlab bench`'s options (also `divlab --bench`).
#[derive(clap::Args, Debug)]
struct BenchArgs {
    /// Write the result document as JSON to FILE (`-`: stdout); docs/results.md.
    #[arg(long, value_name = "FILE", value_parser = Output::parse)]
    json: Option<Output>,
    /// Write metrics and verdicts as CSV to FILE (`-`: stdout), one row each.
    #[arg(long, value_name = "FILE", value_parser = Output::parse)]
    csv: Option<Output>,
    /// Fewer repetitions and smaller sweeps.
    #[arg(long)]
    quick: bool,
    /// Timed repetitions per configuration (default 15, 5 with --quick).
    #[arg(long, value_name = "N")]
    reps: Option<usize>,
    /// Seeds per style in the bench's reconvergence-fuzzer batch (default 24, 8 with --quick).
    #[arg(long, value_name = "N")]
    fuzz_seeds: Option<u64>,
    /// Run only experiments whose id contains this substring.
    #[arg(long, value_name = "ID")]
    only: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run every registered experiment headless and print a summary. `divlab --bench` is the
    /// same command.
    #[command(long_flag = "bench")]
    Bench(BenchArgs),
    /// List every adapter on every backend; `*` marks the one divlab uses by default.
    Adapters,
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
    Compare {
        /// Result documents written by `divlab bench --json`, one column each.
        #[arg(required_unless_present = "baseline")]
        files: Vec<PathBuf>,
        /// Compare the other files against this one: it is the first column, and with
        /// --fail-on-difference only a verdict that differs from its verdict counts.
        #[arg(long, value_name = "FILE")]
        baseline: Option<PathBuf>,
        /// Write Markdown tables (bold where a verdict differs) to FILE (`-`: stdout).
        #[arg(long, value_name = "FILE", value_parser = Output::parse)]
        markdown: Option<Output>,
        /// Write CSV (one row per table row, one column per file, numbers in full) to FILE
        /// (`-`: stdout).
        #[arg(long, value_name = "FILE", value_parser = Output::parse)]
        csv: Option<Output>,
        /// Write the text tables to FILE instead of stdout (`-`: stdout).
        #[arg(short, long, value_name = "FILE", value_parser = Output::parse)]
        output: Option<Output>,
        /// Exit 1 when a check's verdict differs between files (from the baseline's, with
        /// --baseline), so that a comparison can gate CI.
        #[arg(long)]
        fail_on_difference: bool,
    },
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
    /// Exit code 1 when a loop hit the cap.
    Profile {
        /// The WGSL file.
        file: PathBuf,
        /// The compute entry point (default: the only one).
        #[arg(long, value_name = "NAME")]
        entry: Option<String>,
        /// Workgroups to dispatch: X[,Y[,Z]].
        #[arg(long, value_name = "X[,Y[,Z]]", default_value = "1", value_parser = profile::fill::parse_dispatch)]
        dispatch: [u32; 3],
        /// A binding's contents: BINDING (name or GROUP:BINDING) = zeros, iota,
        /// random[:SEED] (the default), values:V1,V2,... or file:PATH.
        #[arg(long = "buffer", value_name = "BINDING=FILL", value_parser = |s: &str| s.parse::<profile::fill::BufferSpec>())]
        buffers: Vec<profile::fill::BufferSpec>,
        /// Elements of a runtime-sized array (default: one per invocation of the dispatch).
        #[arg(long = "len", value_name = "BINDING=N", value_parser = profile::fill::parse_len)]
        lens: Vec<(profile::fill::BindingRef, u64)>,
        /// A pipeline-overridable constant.
        #[arg(long = "override", value_name = "NAME=VALUE", value_parser = profile::fill::parse_override)]
        overrides: Vec<(String, f64)>,
        /// The most iterations one invocation may run of one entry into a loop.
        #[arg(long, value_name = "N", default_value_t = profile::run::DEFAULT_LOOP_CAP)]
        loop_cap: u32,
        /// Timed runs of the kernel alone and instrumented (medians).
        #[arg(long = "reps", value_name = "N", default_value_t = 15)]
        profile_reps: usize,
        /// Write the profile as JSON to FILE (`-`: stdout; docs/profile.md).
        #[arg(long = "json", value_name = "FILE", value_parser = Output::parse)]
        profile_json: Option<Output>,
        /// Write the instrumented WGSL that ran to FILE (`-`: stdout).
        #[arg(long, value_name = "FILE", value_parser = Output::parse)]
        emit_instrumented: Option<Output>,
        /// Record the ballot of every subgroup execution at LINE (the lanes that ran it
        /// together), into the output and the JSON.
        #[arg(long, value_name = "LINE")]
        lanes: Option<u32>,
    },
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
    /// Print divlab's man page (roff): `divlab man | man -l -`.
    Man,
}

/// `--style`: one style, or all three.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum StyleChoice {
    Maximal,
    Subgroup,
    Workgroup,
    All,
}

impl StyleChoice {
    fn styles(self) -> Vec<fuzz::Style> {
        match self {
            StyleChoice::Maximal => vec![fuzz::Style::Maximal],
            StyleChoice::Subgroup => vec![fuzz::Style::Subgroup],
            StyleChoice::Workgroup => vec![fuzz::Style::Workgroup],
            StyleChoice::All => fuzz::Style::ALL.to_vec(),
        }
    }
}

fn parse_backend(s: &str) -> Result<BackendChoice, String> {
    BackendChoice::parse(s).map_err(|e| e.to_string())
}

/// An error that has already decided its exit code.
struct Failure {
    code: u8,
    error: anyhow::Error,
}

impl<E: Into<anyhow::Error>> From<E> for Failure {
    fn from(e: E) -> Self {
        Self {
            code: 2,
            error: e.into(),
        }
    }
}

fn main() -> ExitCode {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        // Mesa's drivers warn on every start without it.
        // SAFETY: single-threaded here; no other thread reads the environment yet.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir()) };
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(Failure { code, error }) => {
            eprintln!("error: {error:#}");
            ExitCode::from(code)
        }
    }
}

/// The bench's options, for the hint when one is given without `bench`.
const BENCH_OPTIONS: [&str; 6] = [
    "--quick",
    "--reps",
    "--only",
    "--fuzz-seeds",
    "--json",
    "--csv",
];

/// Prints clap's error (or help, exit 0) and, for a bench option given without `bench`, where it
/// belongs: `divlab --quick` once opened the app, silently ignoring the option.
fn usage_error(e: &clap::Error) -> ExitCode {
    let _ = e.print();
    if e.kind() == clap::error::ErrorKind::UnknownArgument
        && let Some(clap::error::ContextValue::String(arg)) =
            e.get(clap::error::ContextKind::InvalidArg)
    {
        let name = arg.split('=').next().unwrap_or(arg);
        if BENCH_OPTIONS.contains(&name) {
            eprintln!(
                "note: `{name}` is an option of `divlab bench`: run `divlab bench {arg}` \
                 (or `divlab --bench {arg}`)"
            );
        }
    }
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}

fn run(cli: Cli) -> Result<u8, Failure> {
    let selector = AdapterSelector {
        backend: cli.backend,
        adapter: cli.adapter.clone(),
    };
    match cli.command {
        Some(Command::Bench(args)) => bench(&args, &selector),
        Some(Command::Adapters) => list_adapters(&selector),
        Some(Command::Table { files, markdown }) => key_table(&files, markdown.as_ref()),
        Some(Command::Compare {
            files,
            baseline,
            markdown,
            csv,
            output,
            fail_on_difference,
        }) => compare(&CompareArgs {
            files,
            baseline,
            markdown,
            csv,
            output,
            fail_on_difference,
        }),
        Some(Command::Report { files, output }) => html_report(&files, &output),
        Some(Command::Completions { shell }) => {
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "divlab", &mut std::io::stdout());
            Ok(0)
        }
        Some(Command::Man) => {
            clap_mangen::Man::new(Cli::command())
                .render(&mut std::io::stdout())
                .context("writing the man page")?;
            Ok(0)
        }
        Some(Command::Profile {
            file,
            entry,
            dispatch,
            buffers,
            lens,
            overrides,
            loop_cap,
            profile_reps,
            profile_json,
            emit_instrumented,
            lanes,
        }) => {
            let mut request = profile::run::Request::from_file(&file)?;
            request.entry = entry;
            request.dispatch = dispatch;
            request.buffers = buffers;
            request.lens = lens;
            request.overrides = overrides;
            request.loop_cap = loop_cap;
            request.reps = profile_reps;
            request.lanes_line = lanes;
            run_profile(
                &selector,
                &request,
                profile_json.as_ref(),
                emit_instrumented.as_ref(),
            )
        }
        Some(Command::Uniformity(args)) => Ok(divlab::uniformity::lint::run(&args)?),
        Some(Command::Fuzz {
            seeds,
            start,
            style,
            size,
            out,
            fail_on_mismatch,
        }) => {
            let campaign = fuzz::Campaign {
                start,
                seeds,
                styles: style.styles(),
                size,
                out,
                shrink_attempts: 400,
            };
            run_fuzz(&campaign, &selector, fail_on_mismatch)
        }
        None => app(&selector),
    }
}

/// Opens the desktop app (`divlab` with no arguments). `--adapter N` preselects an adapter;
/// `DIVLAB_OPEN` lists result (`.json`) or `.wgsl` files to open at start, separated like `PATH`.
#[cfg(feature = "app")]
fn app(selector: &AdapterSelector) -> Result<u8, Failure> {
    no_display_check()?;
    let open: Vec<PathBuf> = std::env::var_os("DIVLAB_OPEN")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    let adapter = selector
        .adapter
        .as_deref()
        .and_then(|a| a.parse::<usize>().ok());
    let options = eframe::NativeOptions {
        viewport: eframe::egui::ViewportBuilder::default()
            .with_title("divlab")
            .with_inner_size([1280.0, 800.0]),
        ..Default::default()
    };
    eframe::run_native(
        "divlab",
        options,
        Box::new(move |cc| {
            let mut app = divlab::app::DivlabApp::from_creation_context(cc);
            if adapter.is_some() {
                app.state.adapter = adapter;
            }
            for path in &open {
                app.open_path(path);
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the app window: {e}"))?;
    Ok(0)
}

/// What to run instead of the app, for a machine without a display (or a divlab without one).
const HEADLESS_HINT: &str = "run a command instead: `divlab bench --quick` (the experiments), \
    `divlab profile KERNEL.wgsl` (a kernel of yours), `divlab adapters`, or `divlab --help`";

/// On X11/Wayland systems, the app needs `DISPLAY` or `WAYLAND_DISPLAY`; without either,
/// eframe would fail with a message about the windowing system, not about what to do.
#[cfg(feature = "app")]
fn no_display_check() -> Result<(), Failure> {
    let unix_desktop = cfg!(all(unix, not(target_os = "macos"), not(target_os = "ios")));
    let display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()));
    if unix_desktop && !display {
        return Err(anyhow::anyhow!(
            "`divlab` with no command opens the desktop app, but there is no display \
             (neither DISPLAY nor WAYLAND_DISPLAY is set); {HEADLESS_HINT}"
        )
        .into());
    }
    Ok(())
}

/// Without the `app` feature there is no window to open.
#[cfg(not(feature = "app"))]
fn app(_selector: &AdapterSelector) -> Result<u8, Failure> {
    Err(anyhow::anyhow!("this divlab was built without the `app` feature; {HEADLESS_HINT}").into())
}

fn list_adapters(selector: &AdapterSelector) -> Result<u8, Failure> {
    let instance = adapters::create_instance(selector.backend);
    let list = adapters::list_adapters(&instance, selector.backend);
    if list.is_empty() || selector.adapter.is_some() {
        // Reports "no adapter" or an unknown `--adapter` the same way every command does.
        let (chosen, _) = adapters::select_adapter(selector)?;
        println!("selected: #{} {}", chosen.index, chosen.info.name);
    }
    print!(
        "{}",
        adapters::format_adapter_table(list.iter().map(|(e, _)| e))
    );
    Ok(0)
}

fn run_fuzz(
    campaign: &fuzz::Campaign,
    selector: &AdapterSelector,
    fail_on_mismatch: bool,
) -> Result<u8, Failure> {
    if campaign.seeds == 0 {
        return Err(anyhow::anyhow!("--seeds 0 runs nothing; pass at least 1").into());
    }
    let gpu = GpuContext::new(selector)?;
    let total = campaign.seeds * campaign.styles.len() as u64;
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos:>5}/{len} {elapsed} programs")
            .expect("template is valid")
            .progress_chars("=> "),
    );
    let tallies = fuzz::run_campaign(&gpu, campaign, &|done, _| bar.set_position(done))?;
    bar.finish_and_clear();
    println!("adapter: {} ({:?})", gpu.info.name, gpu.info.backend);
    print!("{}", fuzz::pass_rate_table(campaign, &tallies));
    let mismatched: u64 = tallies.iter().map(|t| t.programs - t.passed).sum();
    if fail_on_mismatch && mismatched > 0 {
        eprintln!("error: {mismatched} program(s) mismatched the simulation (--fail-on-mismatch)");
        return Ok(1);
    }
    Ok(0)
}

/// Writes a document where `--json`/`--csv`/`--markdown` said: a file, atomically, or stdout.
fn write_output(output: &Output, bytes: &[u8], option: &str) -> Result<(), Failure> {
    match output {
        Output::Stdout => {
            use std::io::Write as _;
            let mut stdout = std::io::stdout().lock();
            match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
                // A reader that stopped early (`| head`) wanted no more: not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                other => other.with_context(|| format!("writing {option} to stdout"))?,
            }
        }
        Output::File(path) => divlab::report::write_atomic(path, bytes)
            .with_context(|| format!("writing {option}"))?,
    }
    Ok(())
}

/// At most one document may go to stdout, and none may replace an input file. Commands that
/// read result files (`inputs` non-empty) write no JSON, so an output named `*.json` is refused
/// too: `compare --markdown a.json b.json` once meant "print Markdown", and must not now
/// replace a.json.
fn check_outputs(outputs: &[(&str, &Option<Output>)], inputs: &[PathBuf]) -> Result<(), Failure> {
    let all: Vec<&Option<Output>> = outputs.iter().map(|(_, o)| *o).collect();
    if Output::count_stdout(&all) > 1 {
        return Err(anyhow::anyhow!("only one document can go to stdout (`-`)").into());
    }
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    for (option, output) in outputs {
        if let Some(Output::File(path)) = output
            && let Some(input) = inputs.iter().find(|i| same(i, path))
        {
            return Err(anyhow::anyhow!(
                "{option} {} would overwrite an input file; {option} takes the file to write",
                input.display()
            )
            .into());
        }
        if let Some(Output::File(path)) = output
            && !inputs.is_empty()
            && option != &"--json"
            && path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            return Err(anyhow::anyhow!(
                "{option} {} looks like a result file; {option} takes the file to write \
                 (e.g. {option} out.md), or `-` for stdout",
                path.display()
            )
            .into());
        }
    }
    Ok(())
}

fn key_table(files: &[PathBuf], markdown: Option<&Output>) -> Result<u8, Failure> {
    let output = markdown.cloned();
    check_outputs(&[("--markdown", &output)], files)?;
    let docs = files
        .iter()
        .map(|path| {
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            read_json(path).map(|doc| (name, doc))
        })
        .collect::<divlab::Result<Vec<_>>>()?;
    let table = markdown_key_table(&docs, &divlab::experiments::catalog());
    write_output(
        output.as_ref().unwrap_or(&Output::Stdout),
        table.as_bytes(),
        "--markdown",
    )?;
    Ok(0)
}

/// `divlab compare`'s options.
struct CompareArgs {
    files: Vec<PathBuf>,
    baseline: Option<PathBuf>,
    markdown: Option<Output>,
    csv: Option<Output>,
    output: Option<Output>,
    fail_on_difference: bool,
}

fn compare(args: &CompareArgs) -> Result<u8, Failure> {
    let files: Vec<PathBuf> = args.baseline.iter().chain(&args.files).cloned().collect();
    if args.baseline.is_some() && files.len() < 2 {
        return Err(anyhow::anyhow!("--baseline needs at least one other file to compare").into());
    }
    check_outputs(
        &[
            ("--markdown", &args.markdown),
            ("--csv", &args.csv),
            ("--output", &args.output),
        ],
        &files,
    )?;
    let docs = divlab::report::read_documents(&files)?;
    let cmp = divlab::report::Comparison::new(&docs, &divlab::experiments::catalog());
    if let Some(out) = &args.markdown {
        write_output(out, cmp.to_markdown().as_bytes(), "--markdown")?;
    }
    if let Some(out) = &args.csv {
        write_output(out, cmp.to_csv().as_bytes(), "--csv")?;
    }
    let documents_on_stdout = Output::count_stdout(&[&args.markdown, &args.csv]) > 0;
    match &args.output {
        Some(out) => write_output(out, cmp.to_text().as_bytes(), "--output")?,
        None if !documents_on_stdout => print!("{}", cmp.to_text()),
        None => {}
    }
    if !args.fail_on_difference {
        return Ok(0);
    }
    let differing = if args.baseline.is_some() {
        cmp.verdicts_differing_from(0)
    } else {
        cmp.differing_verdicts()
    };
    if differing > 0 {
        let against = if args.baseline.is_some() {
            " from the baseline's"
        } else {
            " between the files"
        };
        eprintln!(
            "error: {differing} check(s) have a verdict that differs{against} (--fail-on-difference)"
        );
        return Ok(1);
    }
    Ok(0)
}

fn html_report(files: &[PathBuf], output: &Output) -> Result<u8, Failure> {
    let out = Some(output.clone());
    check_outputs(&[("--output", &out)], files)?;
    let docs = divlab::report::read_documents(files)?;
    let html = divlab::report::html_report(&docs, &divlab::experiments::catalog());
    write_output(output, html.as_bytes(), "--output")?;
    Ok(0)
}

fn bench(args: &BenchArgs, selector: &AdapterSelector) -> Result<u8, Failure> {
    check_outputs(&[("--json", &args.json), ("--csv", &args.csv)], &[])?;
    let config = BenchConfig {
        run: RunConfig {
            quick: args.quick,
            reps: args.reps,
            fuzz_seeds: args.fuzz_seeds,
        },
        only: args.only.clone(),
        ids: None,
    };
    config.run.validate()?;
    let ids = divlab::bench::selected_ids(config.only.as_deref());
    if ids.is_empty() {
        return Err(anyhow::anyhow!(
            "--only {:?} matches no experiment; ids are: {}",
            config.only.as_deref().unwrap_or_default(),
            divlab::bench::selected_ids(None).join(", ")
        )
        .into());
    }
    let gpu = GpuContext::new(selector)?;
    let lab = Lab::new(gpu);
    let bar = indicatif::ProgressBar::new(ids.len() as u64 * 1000);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos:>4}/{len} {elapsed} {msg}")
            .expect("template is valid")
            .progress_chars("=> "),
    );
    let on_event = |event: BenchEvent<'_>| match event {
        BenchEvent::Started { index, total, id } => {
            bar.set_position(index as u64 * 1000);
            bar.set_message(format!("[{}/{total}] {id}", index + 1));
        }
        BenchEvent::Progress(f) => {
            let base = bar.position() / 1000 * 1000;
            bar.set_position(base + (f.clamp(0.0, 0.999) * 1000.0) as u64);
        }
        BenchEvent::Finished(_) => {}
    };
    let doc = run_bench(&lab, &config, &on_event);
    bar.finish_and_clear();
    let summary = summary_table(&doc, &divlab::experiments::catalog());
    // A document on stdout keeps stdout parseable: the summary goes to stderr.
    if Output::count_stdout(&[&args.json, &args.csv]) > 0 {
        eprint!("{summary}");
    } else {
        print!("{summary}");
    }
    if let Some(out) = &args.json {
        write_output(out, &json_bytes(&doc), "--json")?;
    }
    if let Some(out) = &args.csv {
        write_output(out, &csv_bytes(&doc), "--csv")?;
    }
    Ok(divlab::bench::exit_code(&doc))
}

/// `divlab profile`: 0 when the kernel ran to its end, 1 when a loop hit the cap (the profile
/// of the cut-short run is still printed and written), 2 for bad input, 3 when the GPU hung or
/// was lost.
fn run_profile(
    selector: &AdapterSelector,
    request: &profile::run::Request,
    json: Option<&Output>,
    emit: Option<&Output>,
) -> Result<u8, Failure> {
    let (json, emit) = (json.cloned(), emit.cloned());
    check_outputs(
        &[("--json", &json), ("--emit-instrumented", &emit)],
        &[PathBuf::from(&request.file)],
    )?;
    let lab = Lab::new(GpuContext::new(selector)?);
    let finished = match profile::run::profile(&lab, request) {
        Ok(finished) => finished,
        Err(e) if e.kind().is_gpu_failure() => {
            return Err(Failure {
                code: 3,
                error: e.into(),
            });
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(out) = &emit {
        write_output(
            out,
            finished.instrumented_wgsl.as_bytes(),
            "--emit-instrumented",
        )?;
    }
    let text = profile::report::render_text(&finished.profile, &request.source);
    // A document on stdout keeps stdout parseable: the report goes to stderr.
    if Output::count_stdout(&[&json, &emit]) > 0 {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
    if let Some(out) = &json {
        let mut text =
            serde_json::to_string_pretty(&finished.profile).expect("a profile serializes");
        text.push('\n');
        write_output(out, text.as_bytes(), "--json")?;
    }
    match finished.cap_hit {
        Some(message) => {
            eprintln!("error: {message}");
            Ok(1)
        }
        None => Ok(0),
    }
}
