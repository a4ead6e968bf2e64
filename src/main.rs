//! The `divlab` command line. It parses arguments and calls the library; nothing else.
//!
//! Exit codes: 0 success; 1 a verdict is `violated` (a driver or compiler bug) or an experiment
//! failed with `error`, or `divlab uniformity` found an error-level diagnostic; 2 a usage or
//! setup error (bad arguments, no adapter, unreadable file).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use divlab::bench::{BenchConfig, BenchEvent, run_bench};
use divlab::experiments::{Lab, RunConfig};
use divlab::fuzz;
use divlab::gpu::{AdapterSelector, BackendChoice, GpuContext, adapters};
use divlab::profile;
use divlab::report::{markdown_key_table, read_json, summary_table, write_csv, write_json};

#[derive(Parser, Debug)]
#[command(version, about = "A portable GPU divergence lab", long_about = None)]
struct Cli {
    /// Run every registered experiment headless and print a summary.
    #[arg(long)]
    bench: bool,
    /// Write the result document as JSON to FILE (with --bench).
    #[arg(long, value_name = "FILE", requires = "bench")]
    json: Option<PathBuf>,
    /// Write metrics and verdicts as CSV to FILE (with --bench).
    #[arg(long, value_name = "FILE", requires = "bench")]
    csv: Option<PathBuf>,
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
    /// Backend: vulkan, metal, dx12 or gl.
    #[arg(long, global = true, env = "WGPU_BACKEND", value_parser = parse_backend)]
    backend: Option<BackendChoice>,
    /// Adapter: an index from `divlab adapters`, or a name substring.
    #[arg(long, global = true, env = "WGPU_ADAPTER_NAME")]
    adapter: Option<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
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
    },
    /// Print a Markdown table of the divergence study's key figures from result files.
    Table {
        /// Result documents written by `divlab --bench --json`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Compare result files side by side: key figures, verdicts and observations per experiment.
    Compare {
        /// Result documents written by `divlab --bench --json`, one column each.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print Markdown tables (bold where a verdict differs).
        #[arg(long, conflicts_with = "csv")]
        markdown: bool,
        /// Print CSV: one row per table row, one column per file, numbers in full.
        #[arg(long)]
        csv: bool,
        /// Write to FILE (atomically) instead of stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Write one self-contained HTML report (SVG charts, verdict tables) over result files.
    Report {
        /// Result documents written by `divlab --bench --json`.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The HTML file to write (atomically).
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
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
        /// Write the profile as JSON to FILE (docs/profile.md).
        #[arg(long = "json", value_name = "FILE")]
        profile_json: Option<PathBuf>,
        /// Write the instrumented WGSL that ran to FILE.
        #[arg(long, value_name = "FILE")]
        emit_instrumented: Option<PathBuf>,
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
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(Failure { code, error }) => {
            eprintln!("error: {error:#}");
            ExitCode::from(code)
        }
    }
}

fn run(cli: Cli) -> Result<u8, Failure> {
    let selector = AdapterSelector {
        backend: cli.backend,
        adapter: cli.adapter.clone(),
    };
    match cli.command {
        Some(Command::Adapters) => list_adapters(&selector),
        Some(Command::Table { files }) => key_table(&files),
        Some(Command::Compare {
            files,
            markdown,
            csv,
            output,
        }) => compare(&files, markdown, csv, output.as_deref()),
        Some(Command::Report { files, output }) => html_report(&files, &output),
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
                profile_json.as_deref(),
                emit_instrumented.as_deref(),
            )
        }
        Some(Command::Uniformity(args)) => Ok(divlab::uniformity::lint::run(&args)?),
        Some(Command::Fuzz {
            seeds,
            start,
            style,
            size,
            out,
        }) => {
            let campaign = fuzz::Campaign {
                start,
                seeds,
                styles: style.styles(),
                size,
                out,
                shrink_attempts: 400,
            };
            run_fuzz(&campaign, &selector)
        }
        None if cli.bench => bench(&cli, &selector),
        None => app(&selector),
    }
}

/// Opens the desktop app (`divlab` with no arguments). `--adapter N` preselects an adapter;
/// `DIVLAB_OPEN` lists result (`.json`) or `.wgsl` files to open at start, separated like `PATH`.
#[cfg(feature = "app")]
fn app(selector: &AdapterSelector) -> Result<u8, Failure> {
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

/// Without the `app` feature there is no window to open.
#[cfg(not(feature = "app"))]
fn app(_selector: &AdapterSelector) -> Result<u8, Failure> {
    Err(anyhow::anyhow!(
        "this divlab was built without the `app` feature; run `divlab --bench` (see `divlab --help`)"
    )
    .into())
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

fn run_fuzz(campaign: &fuzz::Campaign, selector: &AdapterSelector) -> Result<u8, Failure> {
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
    Ok(0)
}

fn key_table(files: &[PathBuf]) -> Result<u8, Failure> {
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
    print!(
        "{}",
        markdown_key_table(&docs, &divlab::experiments::catalog())
    );
    Ok(0)
}

fn compare(
    files: &[PathBuf],
    markdown: bool,
    csv: bool,
    output: Option<&std::path::Path>,
) -> Result<u8, Failure> {
    let docs = divlab::report::read_documents(files)?;
    let cmp = divlab::report::Comparison::new(&docs, &divlab::experiments::catalog());
    let text = match (markdown, csv) {
        (true, _) => cmp.to_markdown(),
        (_, true) => cmp.to_csv(),
        _ => cmp.to_text(),
    };
    match output {
        Some(path) => divlab::report::write_atomic(path, text.as_bytes())?,
        None => print!("{text}"),
    }
    Ok(0)
}

fn html_report(files: &[PathBuf], output: &std::path::Path) -> Result<u8, Failure> {
    let docs = divlab::report::read_documents(files)?;
    let html = divlab::report::html_report(&docs, &divlab::experiments::catalog());
    divlab::report::write_atomic(output, html.as_bytes())?;
    Ok(0)
}

fn bench(cli: &Cli, selector: &AdapterSelector) -> Result<u8, Failure> {
    let config = BenchConfig {
        run: RunConfig {
            quick: cli.quick,
            reps: cli.reps,
            fuzz_seeds: cli.fuzz_seeds,
        },
        only: cli.only.clone(),
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
    print!("{}", summary_table(&doc, &divlab::experiments::catalog()));
    if let Some(path) = &cli.json {
        write_json(path, &doc).with_context(|| "writing --json")?;
    }
    if let Some(path) = &cli.csv {
        write_csv(path, &doc).with_context(|| "writing --csv")?;
    }
    Ok(divlab::bench::exit_code(&doc))
}

/// `divlab profile`: 0 when the kernel ran to its end, 1 when a loop hit the cap (the profile
/// of the cut-short run is still printed and written), 2 for bad input, 3 when the GPU hung or
/// was lost.
fn run_profile(
    selector: &AdapterSelector,
    request: &profile::run::Request,
    json: Option<&std::path::Path>,
    emit: Option<&std::path::Path>,
) -> Result<u8, Failure> {
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
    if let Some(path) = emit {
        divlab::report::write_atomic(path, finished.instrumented_wgsl.as_bytes())
            .with_context(|| "writing --emit-instrumented")?;
    }
    print!(
        "{}",
        profile::report::render_text(&finished.profile, &request.source)
    );
    if let Some(path) = json {
        let mut text =
            serde_json::to_string_pretty(&finished.profile).expect("a profile serializes");
        text.push('\n');
        divlab::report::write_atomic(path, text.as_bytes()).with_context(|| "writing --json")?;
    }
    match finished.cap_hit {
        Some(message) => {
            eprintln!("error: {message}");
            Ok(1)
        }
        None => Ok(0),
    }
}
