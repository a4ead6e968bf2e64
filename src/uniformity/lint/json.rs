//! divlab's own JSON document for a lint run (schema 2: several inputs, end positions, the
//! same rule ids as every other format).

use serde::Serialize;

use super::{Checked, Problem};
use crate::uniformity::Analysis;

/// The document's schema version. 1 was one analysis object per run, with rule `barrier`.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Serialize)]
struct Document<'a> {
    schema_version: u32,
    divlab_version: &'static str,
    files: Vec<File<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum File<'a> {
    /// Analyzed: every diagnostic and line verdict.
    Analyzed {
        #[serde(flatten)]
        analysis: &'a Analysis,
    },
    /// Not valid WGSL (line and column 0 when naga gives no location).
    Invalid {
        file: &'a str,
        line: u32,
        column: u32,
        message: &'a str,
    },
    /// Could not be read.
    Unreadable { file: &'a str, message: &'a str },
}

pub fn render(checked: &[Checked]) -> String {
    let files = checked
        .iter()
        .map(|c| match &c.outcome {
            Ok(analysis) => File::Analyzed { analysis },
            Err(Problem::Invalid {
                line,
                column,
                message,
            }) => File::Invalid {
                file: &c.name,
                line: *line,
                column: *column,
                message,
            },
            Err(Problem::Unreadable(message)) => File::Unreadable {
                file: &c.name,
                message,
            },
        })
        .collect();
    let doc = Document {
        schema_version: SCHEMA_VERSION,
        divlab_version: env!("CARGO_PKG_VERSION"),
        files,
    };
    let mut text = serde_json::to_string_pretty(&doc).expect("the document serializes");
    text.push('\n');
    text
}
