//! `divlab uniformity` as a linter: inputs (files, directories, stdin), one check per input,
//! the outputs CI and editors read (human text with colour, JSON, rustc's JSON, SARIF 2.1.0,
//! GitHub workflow commands), and one exit code for the whole run.
//!
//! Exit codes: 0 no finding at error level, 1 a finding at error level (or any warning with
//! `--deny-warnings`), 2 an input could not be read or is not valid WGSL.

mod cli;
mod github;
mod human;
mod inputs;
mod json;
mod rustc;
mod sarif;

use super::{Analysis, Options, Severity, analyze_source_with};
use crate::Error;

pub use cli::{AFTER_HELP, Args, run};
pub use human::render_analysis;
pub use inputs::{Gathered, Input, gather};
pub use json::{json_schema, schema_id};
pub use sarif::Anchor;

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style text with source snippets, and a summary line per file.
    Human,
    /// One JSON document (`schema_version` 2) for every input.
    Json,
    /// One JSON object per diagnostic, as `rustc --error-format=json` writes them.
    RustcJson,
    /// A SARIF 2.1.0 log, as GitHub code scanning reads it.
    Sarif,
    /// GitHub Actions workflow commands (`::error file=...`).
    Github,
}

/// Colour in the human format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Color {
    /// Colour when standard output is a terminal and `NO_COLOR` is unset.
    Auto,
    Always,
    Never,
}

impl Color {
    /// Whether to colour, given whether the output is a terminal and the `NO_COLOR` variable.
    pub fn enabled(self, is_terminal: bool, no_color: Option<&str>) -> bool {
        match self {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => is_terminal && no_color.is_none_or(str::is_empty),
        }
    }
}

/// Why an input has no analysis.
#[derive(Clone, Debug)]
pub enum Problem {
    /// The file could not be read.
    Unreadable(String),
    /// naga rejects the WGSL (1-based line and column; 0 when unknown).
    Invalid {
        line: u32,
        column: u32,
        message: String,
    },
}

impl Problem {
    fn from_error(e: Error) -> Self {
        match e {
            Error::InvalidWgsl {
                line,
                column,
                message,
                ..
            } => Problem::Invalid {
                line,
                column,
                message,
            },
            other => Problem::Invalid {
                line: 0,
                column: 0,
                message: other.to_string(),
            },
        }
    }

    /// One line: "cannot read ..." or "invalid WGSL: ...".
    pub fn summary(&self) -> String {
        match self {
            Problem::Unreadable(why) => format!("cannot read the file: {why}"),
            Problem::Invalid { message, .. } => {
                let first = message.lines().next().unwrap_or_default();
                format!("not valid WGSL: {}", first.trim_start_matches("error: "))
            }
        }
    }
}

/// One input and what the analysis made of it.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The name it is reported under (its path as given, or `<stdin>`).
    pub name: String,
    pub outcome: Result<Analysis, Problem>,
}

/// Analyzes every input.
pub fn check(inputs: Vec<Input>, options: &Options) -> Vec<Checked> {
    inputs
        .into_iter()
        .map(|input| {
            let outcome = match input.text {
                Err(why) => Err(Problem::Unreadable(why)),
                Ok(text) => check_text(&input.name, &text, options),
            };
            Checked {
                name: input.name,
                outcome,
            }
        })
        .collect()
}

fn check_text(name: &str, text: &str, options: &Options) -> Result<Analysis, Problem> {
    let requires = crate::shaders::required_extensions(text);
    if !options.subgroup_uniformity_extension && requires.contains(&"subgroup_uniformity") {
        return Err(Problem::Invalid {
            line: 0,
            column: 0,
            message: "the shader says `requires subgroup_uniformity;`, and \
                      --no-subgroup-uniformity-extension analyzes it as if that language \
                      extension were not supported; drop one of the two"
                .to_owned(),
        });
    }
    analyze_source_with(name, text, options).map_err(Problem::from_error)
}

/// The run's exit code: 2 when an input could not be checked, else 1 when a finding is at error
/// level (or a warning, with `deny_warnings`), else 0.
pub fn exit_code(checked: &[Checked], deny_warnings: bool) -> u8 {
    if checked.iter().any(|c| c.outcome.is_err()) {
        return 2;
    }
    let failing = |s: Severity| s == Severity::Error || (deny_warnings && s == Severity::Warning);
    let fails = checked
        .iter()
        .filter_map(|c| c.outcome.as_ref().ok())
        .flat_map(|a| &a.diagnostics)
        .any(|d| failing(d.severity));
    u8::from(fails)
}

/// The whole run in `format`. `color` applies to the human format only, `anchor` (where
/// relative URIs start) to SARIF only.
pub fn render(format: Format, checked: &[Checked], color: bool, anchor: &Anchor) -> String {
    match format {
        Format::Human => human::render(checked, color),
        Format::Json => json::render(checked),
        Format::RustcJson => rustc::render(checked),
        Format::Sarif => sarif::render(checked, anchor),
        Format::Github => github::render(checked),
    }
}

/// The level rustc's JSON and SARIF give a severity (both call info `note`).
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The label of a diagnostic's primary span: the argument that must be uniform, or the call.
fn primary_label(d: &super::Diagnostic) -> &'static str {
    if d.message.ends_with("must be uniform") {
        "this value"
    } else {
        "called here"
    }
}

/// Where a byte range of a source starts and ends, as 1-based lines and 1-based columns in
/// Unicode scalar values (what rustc's JSON and SARIF's `unicodeCodePoints` count); the end
/// column is just past the range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Positions {
    line_start: u32,
    column_start: u32,
    line_end: u32,
    column_end: u32,
}

fn positions(source: &str, range: std::ops::Range<usize>) -> Positions {
    let at = |offset: usize| {
        let offset = offset.min(source.len());
        let before = &source[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = before.matches('\n').count() as u32 + 1;
        let column = source[line_start..offset].chars().count() as u32 + 1;
        (line, column)
    };
    let (line_start, column_start) = at(range.start);
    let (line_end, column_end) = at(range.end.max(range.start));
    Positions {
        line_start,
        column_start,
        line_end,
        column_end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, text: &str) -> Vec<Checked> {
        check(
            vec![Input {
                name: name.to_owned(),
                text: Ok(text.to_owned()),
            }],
            &Options::default(),
        )
    }

    const BAD: &str = "@compute @workgroup_size(64)\nfn main(@builtin(local_invocation_index) lid: u32) {\n    if lid > 3u {\n        workgroupBarrier();\n    }\n}\n";

    #[test]
    fn exit_codes_follow_the_worst_input() {
        assert_eq!(exit_code(&run("bad.wgsl", BAD), false), 1);
        let clean = run("ok.wgsl", "@compute @workgroup_size(1) fn main() {}\n");
        assert_eq!(exit_code(&clean, false), 0);
        let invalid = run("broken.wgsl", "fn main( {}\n");
        assert_eq!(exit_code(&invalid, false), 2);
        let mut all = run("bad.wgsl", BAD);
        all.extend(invalid);
        assert_eq!(exit_code(&all, false), 2);
    }

    #[test]
    fn warnings_fail_only_when_denied() {
        let text = "enable subgroups;\ndiagnostic(warning, subgroup_uniformity);\n@compute @workgroup_size(64)\nfn main(@builtin(local_invocation_index) lid: u32) {\n    if lid > 3u {\n        _ = subgroupAdd(1u);\n    }\n}\n";
        let checked = run("w.wgsl", text);
        assert_eq!(exit_code(&checked, false), 0);
        assert_eq!(exit_code(&checked, true), 1);
    }

    #[test]
    fn positions_count_characters() {
        let src = "ab\n\u{e9}x yz\n";
        // "yz" starts at byte 7: line 2, after the two characters "éx" and a space.
        let p = positions(src, 7..9);
        assert_eq!(
            (p.line_start, p.column_start, p.line_end, p.column_end),
            (2, 4, 2, 6)
        );
    }

    #[test]
    fn no_color_turns_auto_off() {
        assert!(Color::Auto.enabled(true, None));
        assert!(Color::Auto.enabled(true, Some("")));
        assert!(!Color::Auto.enabled(true, Some("1")));
        assert!(!Color::Auto.enabled(false, None));
        assert!(Color::Always.enabled(false, Some("1")));
    }

    #[test]
    fn requires_without_the_extension_is_refused() {
        let text = "requires subgroup_uniformity;\n@compute @workgroup_size(1) fn main() {}\n";
        let options = Options {
            subgroup_uniformity_extension: false,
        };
        let checked = check(
            vec![Input {
                name: "r.wgsl".into(),
                text: Ok(text.into()),
            }],
            &options,
        );
        assert!(checked[0].outcome.is_err());
        assert!(run("r.wgsl", text)[0].outcome.is_ok());
    }
}
