//! Diagnostics from failures: the message, the reason chain as labels, and the location.

use super::explain::explain;
use super::function::FunctionGraph;
use super::source::Source;
use super::tags::Failure;
use super::{Diagnostic, Label, Scope};

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
    let (end_line, end_column) = src.line_col(range.end);
    Label {
        line,
        column,
        end_line,
        end_column,
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
        .map(|f| &fg.found.requirements[f.requirement])
        .filter(|r| !r.argument)
        .map(|r| (r.node, r.call))
        .collect();
    let covered = |f: &Failure| {
        let r = &fg.found.requirements[f.requirement];
        r.argument
            && failing_calls
                .iter()
                .any(|(cf, call)| f.path.contains(cf) && *call == r.call)
    };
    failures
        .iter()
        .filter(|f| !covered(f))
        .map(|f| {
            let r = &fg.found.requirements[f.requirement];
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
                end_line: site.end_line,
                end_column: site.end_column,
                labels,
                range: site.range,
            }
        })
        .collect()
}
