//! GitHub Actions workflow commands: one `::error`, `::warning` or `::notice` line per finding,
//! which the runner turns into an annotation on the file's line.

use super::{Checked, Problem};
use crate::uniformity::Severity;

pub fn render(checked: &[Checked]) -> String {
    let mut out = String::new();
    for c in checked {
        match &c.outcome {
            Ok(analysis) => {
                for d in &analysis.diagnostics {
                    let command = match d.severity {
                        Severity::Error => "error",
                        Severity::Warning => "warning",
                        Severity::Info => "notice",
                    };
                    let properties = [
                        ("file", c.name.clone()),
                        ("line", d.line.to_string()),
                        ("col", d.column.to_string()),
                        ("endLine", d.end_line.to_string()),
                        ("endColumn", d.end_column.to_string()),
                        ("title", d.rule.id().to_owned()),
                    ];
                    let message = format!("{} ({})", d.message, d.reason);
                    out.push_str(&annotation(command, &properties, &message));
                }
            }
            Err(problem) => {
                let (line, column) = match problem {
                    Problem::Invalid { line, column, .. } => (*line, *column),
                    Problem::Unreadable(_) => (0, 0),
                };
                let mut properties = vec![("file", c.name.clone())];
                if line > 0 {
                    properties.push(("line", line.to_string()));
                    properties.push(("col", column.to_string()));
                }
                out.push_str(&annotation("error", &properties, &problem.summary()));
            }
        }
    }
    out
}

/// `::command key=value,...::message`, escaped as the runner expects.
fn annotation(command: &str, properties: &[(&str, String)], message: &str) -> String {
    let props: Vec<String> = properties
        .iter()
        .map(|(k, v)| format!("{k}={}", escape_property(v)))
        .collect();
    format!(
        "::{command} {}::{}\n",
        props.join(","),
        escape_data(message)
    )
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_escaped() {
        let line = annotation(
            "error",
            &[("file", "a,b:c.wgsl".to_owned())],
            "50% done\nnext",
        );
        assert_eq!(line, "::error file=a%2Cb%3Ac.wgsl::50%25 done%0Anext\n");
    }
}
