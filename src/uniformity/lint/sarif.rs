//! A SARIF 2.1.0 log, as GitHub code scanning reads it: one run, the three rules with stable
//! ids, one result per diagnostic with its region, the reason chain as `relatedLocations`, and
//! a `partialFingerprints` entry that survives edits elsewhere in the file. Inputs that could not
//! be checked are `toolExecutionNotifications`, and make the invocation unsuccessful.

use serde_json::{Value, json};

use super::{Checked, Positions, Problem, level, positions};
use crate::uniformity::{Analysis, Diagnostic, Rule};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const INFORMATION_URI: &str = "https://www.w3.org/TR/WGSL/#uniformity";

pub fn render(checked: &[Checked]) -> String {
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for c in checked {
        match &c.outcome {
            Ok(analysis) => {
                results.extend(analysis.diagnostics.iter().map(|d| result(analysis, d)));
            }
            Err(problem) => notifications.push(notification(&c.name, problem)),
        }
    }
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id(),
                "name": rule.id(),
                "shortDescription": { "text": rule.description() },
                "helpUri": INFORMATION_URI,
                "defaultConfiguration": { "level": "error" },
            })
        })
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "divlab",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": notifications.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).expect("the log serializes");
    text.push('\n');
    text
}

fn region(p: Positions) -> Value {
    json!({
        "startLine": p.line_start,
        "startColumn": p.column_start,
        "endLine": p.line_end,
        "endColumn": p.column_end,
    })
}

fn location(file: &str, p: Positions) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(file) },
            "region": region(p),
        }
    })
}

/// A relative path as a URI reference: forward slashes, no leading `./`, spaces and `%` escaped.
fn uri(file: &str) -> String {
    let path = file.replace('\\', "/");
    let path = path.strip_prefix("./").unwrap_or(&path);
    path.replace('%', "%25").replace(' ', "%20")
}

fn result(analysis: &Analysis, d: &Diagnostic) -> Value {
    let source = analysis.source();
    let related: Vec<Value> = d
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mut loc = location(&analysis.file, positions(source, l.range.clone()));
            loc["id"] = json!(i + 1);
            loc["message"] = json!({ "text": l.message });
            loc
        })
        .collect();
    let rule_index = Rule::ALL.iter().position(|r| *r == d.rule).unwrap_or(0);
    json!({
        "ruleId": d.rule.id(),
        "ruleIndex": rule_index,
        "level": level(d.severity),
        "message": { "text": format!("{}: {}", d.message, d.reason) },
        "locations": [location(&analysis.file, positions(source, d.range.clone()))],
        "relatedLocations": related,
        "partialFingerprints": { "divlabFinding/v1": fingerprint(analysis, d) },
    })
}

/// A hash of what identifies a finding apart from where the file has moved it: the rule, the
/// function, the message and the text of its line (trimmed). FNV-1a, 64 bits, in hex: stable
/// across builds and platforms, unlike std's hasher.
fn fingerprint(analysis: &Analysis, d: &Diagnostic) -> String {
    let line = analysis
        .source()
        .lines()
        .nth(d.line.saturating_sub(1) as usize)
        .unwrap_or_default()
        .trim();
    let key = format!("{}\0{}\0{}\0{}", d.rule.id(), d.function, d.message, line);
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
}

fn notification(name: &str, problem: &Problem) -> Value {
    let mut n = json!({
        "level": "error",
        "message": { "text": format!("{name}: {}", problem.summary()) },
    });
    if let Problem::Invalid { line, column, .. } = problem
        && *line > 0
    {
        let p = Positions {
            line_start: *line,
            column_start: (*column).max(1),
            line_end: *line,
            column_end: (*column).max(1),
        };
        n["locations"] = json!([location(name, p)]);
    }
    n
}
