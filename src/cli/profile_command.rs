//! `divlab profile`: the run, its progress on stderr, its errors located, its documents.

use std::path::PathBuf;

use divlab::experiments::Lab;
use divlab::gpu::{AdapterSelector, GpuContext};
use divlab::profile;

use crate::args::{Output, ProfileArgs};
use crate::{Failure, check_outputs, write_output};

/// `divlab profile`: 0 when the kernel ran to its end, 1 when a loop hit the cap (the profile
/// of the cut-short run is still printed and written), 2 for bad input, 3 when the GPU hung or
/// was lost. With `--import`, the document's report again: 0, 1 when its run hit the loop cap,
/// or 2 for a file that is not one.
pub(crate) fn run_profile(selector: &AdapterSelector, args: &ProfileArgs) -> Result<u8, Failure> {
    // The files the run reads: the kernel, a document to import, and every `file:` fill, so
    // that no output (a `--save` PNG included) overwrites one of them.
    let fills =
        (args.buffers.iter().map(|b| &b.fill)).chain(args.textures.iter().map(|t| &t.value));
    let inputs: Vec<PathBuf> = (args.file.iter().chain(&args.import).cloned())
        .chain(fills.filter_map(|f| match f {
            profile::fill::Fill::File(path) => Some(path.clone()),
            _ => None,
        }))
        .collect();
    let saves: Vec<Option<Output>> = (args.saves.iter())
        .map(|s| Some(Output::File(s.value.0.clone())))
        .collect();
    let mut outputs = vec![
        ("--json", &args.profile_json),
        ("--csv", &args.csv),
        ("--emit-instrumented", &args.emit_instrumented),
    ];
    outputs.extend(saves.iter().map(|s| ("--save", s)));
    check_outputs(&outputs, &inputs)?;
    let Some(request) = args.request() else {
        let path = args
            .import
            .as_ref()
            .expect("clap requires a file or --import");
        let profile = profile::report::read_profile(path)?;
        let capped = profile.loop_cap_hit;
        write_profile(args, profile)?;
        return Ok(u8::from(capped));
    };
    let request = request?;
    let finished = profile_with_progress(selector, &request)?;
    if let Some(out) = &args.emit_instrumented {
        write_output(
            out,
            finished.instrumented_wgsl.as_bytes(),
            "--emit-instrumented",
        )?;
    }
    write_profile(args, finished.profile)?;
    match finished.cap_hit {
        Some(message) => {
            eprintln!("error: {message}");
            Ok(1)
        }
        None => Ok(0),
    }
}

/// Profiles `request`, showing on stderr what it is doing once it has taken two seconds
/// (indicatif draws nothing where stderr is not a terminal).
fn profile_with_progress(
    selector: &AdapterSelector,
    request: &profile::run::Request,
) -> Result<profile::run::Finished, Failure> {
    use profile::run::Stage;
    let bar = indicatif::ProgressBar::hidden();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
            .expect("template is valid"),
    );
    bar.set_message(format!("profiling {}: opening the adapter", request.file));
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let shower = {
        let bar = bar.clone();
        std::thread::spawn(move || {
            if finished.recv_timeout(std::time::Duration::from_secs(2))
                == Err(std::sync::mpsc::RecvTimeoutError::Timeout)
            {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                bar.enable_steady_tick(std::time::Duration::from_millis(120));
            }
        })
    };
    let mut on_stage = |stage: Stage| {
        let doing = stage.doing(request.time_budget);
        bar.set_message(format!("profiling {}: {doing}", request.file));
    };
    let result = GpuContext::new(selector).and_then(|gpu| {
        profile::run::profile_with_progress(&Lab::new(gpu), request, &mut on_stage)
    });
    drop(done);
    let _ = shower.join();
    bar.finish_and_clear();
    // 3 for a GPU that timed out or was lost, 4 for a divlab bug, else 2.
    result.map_err(|e| Failure {
        code: e.exit_code(),
        error: located(e, request),
    })
}

/// A profile error that names a line of the kernel, led by `file:line:` as compilers write it,
/// for an editor to jump to. Invalid WGSL and `--lanes` name their place already.
fn located(error: divlab::Error, request: &profile::run::Request) -> anyhow::Error {
    let placed = match &error {
        divlab::Error::InvalidWgsl { .. } => true,
        divlab::Error::Profile(e) => matches!(**e, profile::Error::BadLanes { .. }),
        _ => false,
    };
    match error.line() {
        Some(line) if !placed => {
            anyhow::Error::from(error).context(format!("{}:{line}", request.file))
        }
        _ => error.into(),
    }
}

/// Prints a profile's report (to stderr when a document goes to stdout) and writes its
/// documents; `--no-source` leaves the source out of the documents, not the report.
fn write_profile(args: &ProfileArgs, mut profile: profile::report::Profile) -> Result<(), Failure> {
    let text = profile::report::render_text(&profile);
    let documents = [&args.profile_json, &args.csv, &args.emit_instrumented];
    // A document on stdout keeps stdout parseable: the report goes to stderr.
    if Output::count_stdout(&documents) > 0 {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
    if args.no_source {
        profile.source = None;
    }
    // A document read back (`--import`) from before `$schema` was recorded names it now.
    profile.schema = profile::report::profile_schema_id();
    if let Some(out) = &args.profile_json {
        write_output(out, &profile::report::json_bytes(&profile), "--json")?;
    }
    if let Some(out) = &args.csv {
        write_output(out, &profile::report::csv_bytes(&profile), "--csv")?;
    }
    Ok(())
}
