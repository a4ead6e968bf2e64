//! The diagnostics as `rustc --error-format=json` writes them: one JSON object per line, with
//! spans (byte and 1-based character positions, the line's text), `is_primary`, `label`,
//! `children` (the reason as a note) and `rendered` (the human text). Editors and tools that read
//! cargo's output read these.

use serde_json::{Value, json};

use super::{Checked, Problem, human, level, positions, primary_label};
use crate::uniformity::{Analysis, Diagnostic};

pub fn render(checked: &[Checked]) -> String {
    let mut out = String::new();
    for c in checked {
        let messages = match &c.outcome {
            Ok(analysis) => analysis
                .diagnostics
                .iter()
                .map(|d| diagnostic(analysis, d))
                .collect(),
            Err(problem) => vec![problem_message(&c.name, problem)],
        };
        for m in messages {
            out.push_str(&m.to_string());
            out.push('\n');
        }
    }
    out
}

fn diagnostic(analysis: &Analysis, d: &Diagnostic) -> Value {
    let mut spans = vec![span(analysis, d.range.clone(), true, primary_label(d))];
    spans.extend(
        d.labels
            .iter()
            .map(|l| span(analysis, l.range.clone(), false, &l.message)),
    );
    let single = Analysis {
        diagnostics: vec![d.clone()],
        ..analysis.clone()
    };
    json!({
        "$message_type": "diagnostic",
        "message": d.message,
        "code": { "code": d.rule.id(), "explanation": null },
        "level": level(d.severity),
        "spans": spans,
        "children": [{
            "message": d.reason,
            "code": null,
            "level": "note",
            "spans": [],
            "children": [],
            "rendered": null,
        }],
        "rendered": human::render_analysis(&single, false),
    })
}

fn span(
    analysis: &Analysis,
    range: std::ops::Range<usize>,
    is_primary: bool,
    label: &str,
) -> Value {
    let source = analysis.source();
    let p = positions(source, range.clone());
    let text: Vec<Value> = source
        .lines()
        .skip(p.line_start as usize - 1)
        .take((p.line_end - p.line_start + 1) as usize)
        .enumerate()
        .map(|(i, line)| {
            let chars = line.chars().count() as u32 + 1;
            let start = if i == 0 { p.column_start } else { 1 };
            let end = if p.line_start + i as u32 == p.line_end {
                p.column_end
            } else {
                chars
            };
            json!({ "text": line, "highlight_start": start, "highlight_end": end })
        })
        .collect();
    json!({
        "file_name": analysis.file,
        "byte_start": range.start,
        "byte_end": range.end,
        "line_start": p.line_start,
        "line_end": p.line_end,
        "column_start": p.column_start,
        "column_end": p.column_end,
        "is_primary": is_primary,
        "text": text,
        "label": if label.is_empty() { Value::Null } else { json!(label) },
        "suggested_replacement": null,
        "suggestion_applicability": null,
        "expansion": null,
    })
}

fn problem_message(name: &str, problem: &Problem) -> Value {
    let rendered = match problem {
        Problem::Invalid { message, .. } => format!("{}\n", message.trim_end()),
        Problem::Unreadable(_) => format!("error: {name}: {}\n", problem.summary()),
    };
    json!({
        "$message_type": "diagnostic",
        "message": format!("{name}: {}", problem.summary()),
        "code": null,
        "level": "error",
        "spans": [],
        "children": [],
        "rendered": rendered,
    })
}
