//! The arguments of `divlab uniformity` and the run behind them: check, print, write files,
//! and return the exit code.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use super::{Anchor, Color, Format, check, exit_code, gather, render};
use crate::Result;
use crate::uniformity::Options;

/// What `--help` says after the options.
pub const AFTER_HELP: &str = "\
Rules (one id in every format): uniformity (barriers, workgroupUniformLoad), subgroup_uniformity
(subgroup and quad builtins), derivative_uniformity (derivatives, implicit-level sampling).

Exit codes:
  0  no finding at error level (warnings and notes are reported)
  1  a finding at error level, or a warning with --deny-warnings
  2  an input could not be read or is not valid WGSL, no path held a .wgsl file, or the
     arguments are wrong (a directory without a .wgsl file is skipped with a note)

Environment: NO_COLOR (non-empty) turns colour off unless --color always.";

/// `divlab uniformity`'s arguments.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// WGSL files, directories (every *.wgsl below them, recursively) or - for standard input.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// What to print on standard output.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Also write the JSON document (schema 2) to FILE; - is standard output.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also write a SARIF 2.1.0 log to FILE (for GitHub code scanning); - is standard output.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// The directory SARIF's relative URIs start from (`%SRCROOT%`, usually the repository's
    /// root): files below it are named relative to it, others by absolute `file://` URIs.
    /// Default: the current directory, and absolute paths stay absolute.
    #[arg(long, value_name = "DIR")]
    pub sarif_root: Option<PathBuf>,
    /// Exit with 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Colour the human format.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// Check subgroup builtins at workgroup scope, as without the `subgroup_uniformity`
    /// language extension.
    #[arg(long)]
    pub no_subgroup_uniformity_extension: bool,
}

/// Runs the linter: prints `--format` on stdout, writes `--json`/`--sarif` files with `write`
/// (the CLI passes its atomic writer), and returns the exit code.
pub fn run(args: &Args, write: impl Fn(&Path, &[u8]) -> Result<()>) -> Result<u8> {
    let options = Options {
        subgroup_uniformity_extension: !args.no_subgroup_uniformity_extension,
    };
    let gathered = gather(&args.paths);
    for dir in &gathered.skipped {
        eprintln!("note: {}: no .wgsl file below it; skipped", dir.display());
    }
    if gathered.inputs.is_empty() {
        eprintln!("error: no .wgsl file to check in the paths given");
        return Ok(2);
    }
    let cwd = std::env::current_dir().map_err(|e| {
        crate::Error::InvalidSettings(format!(
            "the current directory cannot be read ({e}); SARIF's URIs start from it"
        ))
    })?;
    let anchor = Anchor::new(args.sarif_root.as_deref(), &cwd);
    let checked = check(gathered.inputs, &options);
    let no_color = std::env::var("NO_COLOR").ok();
    let color = args.format == Format::Human
        && args
            .color
            .enabled(std::io::stdout().is_terminal(), no_color.as_deref());
    print!("{}", render(args.format, &checked, color, &anchor));
    for (path, format) in [(&args.json, Format::Json), (&args.sarif, Format::Sarif)] {
        let Some(path) = path else { continue };
        let text = render(format, &checked, false, &anchor);
        if path.as_os_str() == "-" {
            print!("{text}");
        } else {
            write(path, text.as_bytes())?;
        }
    }
    Ok(exit_code(&checked, args.deny_warnings))
}
