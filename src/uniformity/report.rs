//! Diagnostics from failures, and their rustc-style rendering with source snippets
//! (codespan-reporting, as naga itself uses).

use codespan_reporting::diagnostic::{Diagnostic as Report, Label as ReportLabel};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;

use super::explain::explain;
use super::function::FunctionGraph;
use super::source::{Rule, Severity, Source};
use super::tags::Failure;
use super::{Analysis, Diagnostic, Label, Scope};

/// The first line of a span's original range: labels stay on one line.
fn one_line(src: &Source, span: naga::Span) -> std::ops::Range<usize> {
    let r = src.original_range(span);
    let end = src.original[r.clone()]
        .find('\n')
        .map_or(r.end, |i| r.start + i);
    r.start..end.max(r.start)
}

fn label(src: &Source, span: naga::Span, message: String) -> Label {
    let range = one_line(src, span);
    let (line, column) = src.line_col(range.start);
    Label {
        line,
        column,
        message,
        range,
    }
}

/// One diagnostic per failing requirement.
pub(crate) fn diagnostics(
    src: &Source,
    fg: &FunctionGraph,
    failures: &[Failure],
    scope: Scope,
) -> Vec<Diagnostic> {
    // An argument that is non-uniform only because the call's control flow is needs no
    // diagnostic of its own when the call itself already failed.
    let failing_calls: Vec<(usize, naga::Span)> = failures
        .iter()
        .map(|f| &fg.requirements[f.requirement])
        .filter(|r| !r.argument)
        .map(|r| (r.node, r.call))
        .collect();
    let covered = |f: &Failure| {
        let r = &fg.requirements[f.requirement];
        r.argument
            && failing_calls
                .iter()
                .any(|(cf, call)| f.path.contains(cf) && *call == r.call)
    };
    failures
        .iter()
        .filter(|f| !covered(f))
        .map(|f| {
            let r = &fg.requirements[f.requirement];
            let e = explain(fg, src, &f.path, &|_| None);
            let flow = match scope {
                Scope::Workgroup => "uniform control flow",
                Scope::Subgroup => "subgroup-uniform control flow",
            };
            let message = if r.argument {
                format!("{} must be uniform", r.what)
            } else {
                format!("{} requires {flow}", r.what)
            };
            let mut labels: Vec<Label> = e
                .labels
                .iter()
                .map(|(span, text)| label(src, *span, text.clone()))
                .collect();
            for c in &r.causes {
                // A builtin's own requirement needs no second label; a callee's does.
                if c.function != fg.name || (!r.argument && c.span != r.site) {
                    let text = format!("because of {} in `{}`", c.what, c.function);
                    labels.push(label(src, c.span, text));
                }
            }
            let site = label(src, r.site, String::new());
            Diagnostic {
                severity: r.severity,
                rule: r.rule,
                scope,
                function: fg.name.clone(),
                message,
                reason: e.reason,
                line: site.line,
                column: site.column,
                labels,
                range: site.range,
            }
        })
        .collect()
}

/// rustc-style text for every diagnostic of an analysis.
pub(crate) fn render(analysis: &Analysis) -> String {
    let file = SimpleFile::new(analysis.file.as_str(), analysis.source());
    let config = term::Config::default();
    let mut out = String::new();
    for d in &analysis.diagnostics {
        let report = match d.severity {
            Severity::Error => Report::error(),
            Severity::Warning => Report::warning(),
            Severity::Info => Report::note(),
        };
        let code = match d.rule {
            Rule::Barrier => "uniformity",
            Rule::SubgroupUniformity => "subgroup_uniformity",
            Rule::DerivativeUniformity => "derivative_uniformity",
        };
        let primary = if d.message.ends_with("must be uniform") {
            "this value"
        } else {
            "called here"
        };
        let mut labels = vec![ReportLabel::primary((), d.range.clone()).with_message(primary)];
        labels.extend(
            d.labels
                .iter()
                .map(|l| ReportLabel::secondary((), l.range.clone()).with_message(&l.message)),
        );
        let report = report
            .with_message(&d.message)
            .with_code(code)
            .with_labels(labels)
            .with_notes(vec![d.reason.clone()]);
        match term::emit_into_string(&config, &file, &report) {
            Ok(text) => out.push_str(&text),
            Err(e) => out.push_str(&format!("{}: {} ({e})\n", analysis.file, d.message)),
        }
    }
    out
}
