//! The `divlab` command line. It parses arguments and calls the library; nothing else.
//!
//! Exit codes: the one table is docs/exit-codes.md, and `divlab --help` prints it (`AFTER_HELP`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{CommandFactory as _, FromArgMatches as _};
use divlab::bench::{BenchConfig, BenchEvent, run_bench};
use divlab::experiments::{Lab, RunConfig};
use divlab::fuzz;
use divlab::gpu::inventory::describe_adapter;
use divlab::gpu::{AdapterSelector, GpuContext, adapters};
use divlab::report::{csv_bytes, json_bytes, markdown_key_table, read_json, summary_table};

#[path = "cli/args.rs"]
mod args;
#[path = "cli/examples.rs"]
mod examples;
#[path = "cli/man.rs"]
mod man;
#[path = "cli/profile_command.rs"]
mod profile_command;

use args::{BenchArgs, Cli, Command, CompareArgs, Output};

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
    let parsed = examples::command(Cli::command())
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let outcome = if cli.command.is_none() {
        // The app's window must be made on the main thread.
        #[cfg(feature = "app")]
        divlab::gpu::fault::install(Some(&divlab::app::fault_report()));
        run(cli)
    } else {
        // A driver that faults ends the process: say so, and in which GPU step (exit 3).
        divlab::gpu::fault::install(None);
        on_a_deep_stack(move || run(cli))
    };
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(Failure { code, error }) => {
            eprintln!("error: {error:#}");
            ExitCode::from(code)
        }
    }
}

/// The stack the commands run on. naga's WGSL front end and divlab's analyses recurse once per
/// nesting level of an expression: the main thread's 8 MiB overflowed (an abort) near 20,000
/// chained operators. Reserved address space only; pages are touched as the recursion goes.
const COMMAND_STACK_BYTES: usize = 1 << 30;

/// Runs `work` on a thread with [`COMMAND_STACK_BYTES`] of stack, and returns what it returns.
fn on_a_deep_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name("divlab".to_owned())
        .stack_size(COMMAND_STACK_BYTES)
        .spawn(work)
        .expect("spawning the command's thread")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
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
    let code = ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    if e.kind() == clap::error::ErrorKind::UnknownArgument
        && let Some(clap::error::ContextValue::String(arg)) =
            e.get(clap::error::ContextKind::InvalidArg)
    {
        let name = arg.split('=').next().unwrap_or(arg);
        if BENCH_OPTIONS.contains(&name) {
            // Not clap's text: its tip would offer `-- {arg}`, as a file for the app.
            eprintln!(
                "error: `{name}` is an option of `divlab bench`: run `divlab bench {arg}` \
                 (or `divlab --bench {arg}`)"
            );
            return code;
        }
    }
    let _ = e.print();
    code
}

fn run(cli: Cli) -> Result<u8, Failure> {
    let selector = AdapterSelector {
        backend: cli.backend,
        adapter: cli.adapter.clone(),
    };
    // A GPU step that outlives --timeout ends the process (exit 3), with what works instead.
    let hint = match &cli.command {
        Some(Command::Bench(_)) => {
            Some("Try `divlab bench --quick`, a larger --timeout, or a faster adapter.")
        }
        Some(Command::Profile(_)) => Some(
            "Try fewer workgroups (--dispatch), a lower --loop-cap, a larger --timeout, or a \
             faster adapter; where the instrumented kernel's compile ran out, --counts \
             invocations compiles lighter (no subgroup operation in the counters).",
        ),
        Some(Command::Fuzz { .. }) => {
            Some("Try fewer --seeds, a smaller --size, or a larger --timeout.")
        }
        _ => None,
    };
    if let Some(hint) = hint {
        divlab::gpu::watchdog::install(cli.timeout, hint);
    }
    match cli.command {
        Some(Command::Bench(args)) => bench(&args, &selector),
        Some(Command::Adapters { json }) => list_adapters(&selector, json.as_ref()),
        Some(Command::Table { files, markdown }) => key_table(&files, markdown.as_ref()),
        Some(Command::Compare(args)) => compare(&args),
        Some(Command::Report { files, output }) => html_report(&files, &output),
        Some(Command::Completions { shell }) => {
            let mut command = examples::command(Cli::command());
            clap_complete::generate(shell, &mut command, "divlab", &mut std::io::stdout());
            Ok(0)
        }
        Some(Command::Man { dir: None }) => {
            // Rendered whole, then written as documents are: `divlab man | head` is no error.
            let mut page = Vec::new();
            man::main_page(examples::command(Cli::command()), &mut page)
                .context("rendering the man page")?;
            write_output(&Output::Stdout, &page, "the man page")?;
            Ok(0)
        }
        Some(Command::Man { dir: Some(dir) }) => {
            let written = man::write_pages(examples::command(Cli::command()), &dir)?;
            eprintln!("wrote {} man pages into {}", written.len(), dir.display());
            Ok(0)
        }
        Some(Command::Schema { kind }) => {
            write_output(&Output::Stdout, kind.file_text().as_bytes(), "the schema")?;
            Ok(0)
        }
        Some(Command::Profile(args)) => profile_command::run_profile(&selector, &args),
        Some(Command::Uniformity(args)) => {
            for (option, path) in [("--json", &args.json), ("--sarif", &args.sarif)] {
                if let Some(path) = path.as_deref().filter(|p| p.as_os_str() != "-") {
                    divlab::report::check_writable(path).context(option)?;
                }
            }
            Ok(divlab::uniformity::lint::run(
                &args,
                divlab::report::write_atomic,
            )?)
        }
        Some(Command::Fuzz {
            seeds,
            start,
            style,
            size,
            out,
            fail_on_mismatch,
            json,
        }) => {
            let campaign = fuzz::Campaign {
                start,
                seeds,
                styles: style.styles(),
                size,
                out,
                shrink_attempts: 400,
            };
            run_fuzz(&campaign, &selector, fail_on_mismatch, json.as_ref())
        }
        None => app(&selector, cli.open),
    }
}

/// Opens the desktop app (`divlab` with no command). `--adapter N` preselects an adapter; the
/// files named (`divlab a.json k.wgsl`) and those `DIVLAB_OPEN` lists, separated like `PATH`,
/// open at start.
#[cfg(feature = "app")]
fn app(selector: &AdapterSelector, mut open: Vec<PathBuf>) -> Result<u8, Failure> {
    no_display_check()?;
    if let Some(listed) = std::env::var_os("DIVLAB_OPEN") {
        open.extend(std::env::split_paths(&listed));
    }
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
            app.open_paths(&open);
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
fn app(_selector: &AdapterSelector, _open: Vec<PathBuf>) -> Result<u8, Failure> {
    Err(anyhow::anyhow!("this divlab was built without the `app` feature; {HEADLESS_HINT}").into())
}

fn list_adapters(selector: &AdapterSelector, json: Option<&Output>) -> Result<u8, Failure> {
    let instance = adapters::create_instance(selector.backend);
    let list = adapters::list_adapters(&instance, selector.backend);
    if list.is_empty() || selector.adapter.is_some() {
        // Reports "no adapter" or an unknown `--adapter` the same way every command does.
        let (chosen, _) = adapters::select_adapter(selector)?;
        if json != Some(&Output::Stdout) {
            println!("selected: #{} {}", chosen.index, chosen.info.name);
        }
    }
    if let Some(output) = json {
        let text = divlab::gpu::inventory::inventory_json(list.iter().map(|(e, _)| e));
        write_output(output, text.as_bytes(), "--json")?;
    }
    if json != Some(&Output::Stdout) {
        print!(
            "{}",
            adapters::format_adapter_table(list.iter().map(|(e, _)| e))
        );
    }
    Ok(0)
}

fn run_fuzz(
    campaign: &fuzz::Campaign,
    selector: &AdapterSelector,
    fail_on_mismatch: bool,
    json: Option<&Output>,
) -> Result<u8, Failure> {
    if campaign.seeds == 0 {
        return Err(anyhow::anyhow!("--seeds 0 runs nothing; pass at least 1").into());
    }
    check_outputs(&[("--json", &json.cloned())], &[])?;
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
    let summary = format!(
        "adapter: {} ({:?})\n{}",
        gpu.info.name,
        gpu.info.backend,
        fuzz::pass_rate_table(campaign, &tallies)
    );
    if let Some(output) = json {
        let document = fuzz::FuzzDocument::new(
            campaign,
            &tallies,
            describe_adapter(&gpu.info, gpu.caps.subgroups, gpu.caps.timestamps),
        );
        write_output(output, document.to_json().as_bytes(), "--json")?;
    }
    if json == Some(&Output::Stdout) {
        eprint!("{summary}");
    } else {
        print!("{summary}");
    }
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
    // Before the run: a write that would fail (no such folder, a read-only file) fails now,
    // not after minutes of work.
    for (option, output) in outputs {
        if let Some(Output::File(path)) = output {
            divlab::report::check_writable(path).with_context(|| option.to_string())?;
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

fn compare(args: &CompareArgs) -> Result<u8, Failure> {
    let files: Vec<PathBuf> = args.baseline.iter().chain(&args.files).cloned().collect();
    if args.baseline.is_some() && files.len() < 2 {
        return Err(anyhow::anyhow!("--baseline needs at least one other file to compare").into());
    }
    // `--fail-on-difference` is `--fail-on any`.
    let level = args.fail_on.or(args
        .fail_on_difference
        .then_some(divlab::report::FailOn::Any));
    if args.threshold.is_some() && level.is_none() {
        return Err(anyhow::anyhow!(
            "--threshold sets when a figure fails the gate; give the gate too, e.g. \
             `--fail-on guarantee --threshold 10%`"
        )
        .into());
    }
    let outputs = [&args.markdown, &args.csv, &args.long];
    check_outputs(
        &[
            ("--markdown", outputs[0]),
            ("--csv", outputs[1]),
            ("--long", outputs[2]),
            ("--output", &args.output),
        ],
        &files,
    )?;
    let docs = divlab::report::read_documents(&files)?;
    let catalog = divlab::experiments::catalog();
    let cmp = divlab::report::Comparison::new(&docs, &catalog);
    if let Some(out) = &args.markdown {
        write_output(out, cmp.to_markdown().as_bytes(), "--markdown")?;
    }
    if let Some(out) = &args.csv {
        write_output(out, cmp.to_csv().as_bytes(), "--csv")?;
    }
    if let Some(out) = &args.long {
        let long = divlab::report::long_csv(docs.iter().map(|(_, d)| d));
        write_output(out, &long, "--long")?;
    }
    match &args.output {
        Some(out) => write_output(out, cmp.to_text().as_bytes(), "--output")?,
        None if Output::count_stdout(&outputs) == 0 => print!("{}", cmp.to_text()),
        None => {}
    }
    let Some(level) = level else { return Ok(0) };
    let gate = divlab::report::Gate {
        level,
        threshold: args.threshold,
        baseline: args.baseline.is_some(),
    };
    let report = gate.check(&docs, &cmp, &catalog);
    let threshold = args.threshold.map(|t| (t * 1e6).round() / 1e4);
    if !report.within_noise.is_empty() {
        eprintln!(
            "note: {} key figure(s) moved more than {}% but inside both files' 95% intervals: \
             noise, not counted:",
            report.within_noise.len(),
            threshold.unwrap_or_default()
        );
        for change in &report.within_noise {
            eprintln!("  {change}");
        }
    }
    if report.changes.is_empty() {
        return Ok(0);
    }
    eprintln!(
        "error: {} change(s) fail the gate (--fail-on {}{}):",
        report.changes.len(),
        level.name(),
        threshold.map_or_else(String::new, |t| format!(" --threshold {t}%"))
    );
    for change in &report.changes {
        eprintln!("  {change}");
    }
    Ok(1)
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
