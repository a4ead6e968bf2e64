//! rustc-style text with source snippets (codespan-reporting, as naga itself uses), coloured
//! through termcolor when asked, and a summary line per input.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label as ReportLabel};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;
use std::io::Write as _;

use termcolor::Buffer;

use super::{Checked, Problem};
use crate::uniformity::{Analysis, Severity, summary};

/// Every input: its diagnostics (or why it could not be checked) and its summary line.
pub fn render(checked: &[Checked], color: bool) -> String {
    let mut out = String::new();
    for c in checked {
        match &c.outcome {
            Ok(analysis) => {
                out.push_str(&render_analysis(analysis, color));
                out.push_str(&naga_note(analysis));
                out.push_str(&summary(analysis));
                out.push('\n');
            }
            Err(Problem::Invalid { message, .. }) => {
                out.push_str(message.trim_end());
                out.push_str(&format!("\n{}: not valid WGSL; nothing analyzed\n", c.name));
            }
            Err(problem @ Problem::Unreadable(_)) => {
                out.push_str(&format!("error: {}: {}\n", c.name, problem.summary()));
            }
        }
    }
    out
}

/// Where naga 30, and so wgpu, rejects the valid source: each function that ends in a loop only
/// `return` leaves, and the line a wgpu program needs. Empty for most sources.
fn naga_note(analysis: &Analysis) -> String {
    let mut out = String::new();
    for a in analysis.added_returns() {
        out.push_str(&format!(
            "wgpu: {}:{}: {}; analyzed as written\n",
            analysis.file,
            a.line,
            a.describe()
        ));
    }
    out
}

/// The diagnostics of one analysis.
pub fn render_analysis(analysis: &Analysis, color: bool) -> String {
    let file = SimpleFile::new(analysis.file.as_str(), analysis.source());
    let config = term::Config::default();
    let mut buffer = if color {
        Buffer::ansi()
    } else {
        Buffer::no_color()
    };
    for d in &analysis.diagnostics {
        let report = match d.severity {
            Severity::Error => Report::error(),
            Severity::Warning => Report::warning(),
            Severity::Info => Report::note(),
        };
        let mut labels =
            vec![ReportLabel::primary((), d.range.clone()).with_message(super::primary_label(d))];
        labels.extend(
            d.labels
                .iter()
                .map(|l| ReportLabel::secondary((), l.range.clone()).with_message(&l.message)),
        );
        let report = report
            .with_message(&d.message)
            .with_code(d.rule.id())
            .with_labels(labels)
            .with_notes(vec![d.reason.clone()]);
        if let Err(e) = term::emit_to_write_style(&mut buffer, &config, &file, &report) {
            // Writing into memory fails only on a span outside the file: say so in one line.
            let _ = writeln!(buffer, "{}: {} ({e})", analysis.file, d.message);
        }
    }
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}
