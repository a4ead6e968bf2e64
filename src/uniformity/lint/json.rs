//! divlab's own JSON document for a lint run (schema 2: several inputs, end positions, the
//! same rule ids as every other format).

use serde::Serialize;

use super::{Checked, Problem};
use crate::uniformity::Analysis;

/// The document's schema version. 1 was one analysis object per run, with rule `barrier`.
pub const SCHEMA_VERSION: u32 = 2;

/// What `divlab uniformity --json` writes: one entry per input file (docs/uniformity.md).
#[derive(Serialize, schemars::JsonSchema)]
struct Document<'a> {
    /// The JSON Schema the document follows, named by its `$id`
    /// (`urn:divlab:schema:uniformity:v2`, the file `schemas/uniformity.schema.json`).
    #[serde(rename = "$schema")]
    schema: String,
    /// The document's format version.
    #[schemars(range(min = SCHEMA_VERSION, max = SCHEMA_VERSION))]
    schema_version: u32,
    /// The divlab version that wrote it.
    divlab_version: &'static str,
    /// One entry per input, in the order given (directories expanded in name order).
    files: Vec<File<'a>>,
}

/// One input: analyzed, not valid WGSL, or unreadable (`status`).
#[derive(Serialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
enum File<'a> {
    /// Analyzed: every diagnostic and line verdict.
    Analyzed {
        #[serde(flatten)]
        analysis: &'a Analysis,
    },
    /// Not valid WGSL (line and column 0 when naga gives no location).
    Invalid {
        /// The input's name.
        file: &'a str,
        /// 1-based line of the error; 0 when naga gives none.
        line: u32,
        /// 1-based byte column; 0 when naga gives none.
        column: u32,
        /// naga's message.
        message: &'a str,
    },
    /// Could not be read.
    Unreadable {
        /// The input's name.
        file: &'a str,
        /// Why it could not be read.
        message: &'a str,
    },
}

/// The `$id` of the document's JSON Schema, which every document names in `$schema`
/// (`schemas/uniformity.schema.json` in the repository, or `divlab schema uniformity`).
pub fn schema_id() -> String {
    format!("urn:divlab:schema:uniformity:v{SCHEMA_VERSION}")
}

/// The document's JSON Schema, without its `$id` (`crate::schemas` adds it).
pub fn json_schema() -> schemars::Schema {
    schemars::schema_for!(Document<'static>)
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
        schema: schema_id(),
        schema_version: SCHEMA_VERSION,
        divlab_version: env!("CARGO_PKG_VERSION"),
        files,
    };
    let mut text = serde_json::to_string_pretty(&doc).expect("the document serializes");
    text.push('\n');
    text
}
