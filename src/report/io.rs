//! Reading and writing result documents: atomic writes, strict reads with clear errors.

use std::io::Write as _;
use std::path::Path;

use crate::report::{ExperimentStatus, ResultDocument, SCHEMA_VERSION};
use crate::{Error, Result};

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a rename, so a reader
/// never sees half a file and a failed run leaves any previous file intact.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let write_err = |source| Error::Write {
        path: path.to_owned(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    // A temporary file is owner-only; a result file is meant to be shared (CI artifacts).
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
    let mut tmp = builder.tempfile_in(dir).map_err(write_err)?;
    tmp.write_all(bytes).map_err(write_err)?;
    tmp.as_file().sync_all().map_err(write_err)?;
    tmp.persist(path).map_err(|e| write_err(e.error))?;
    Ok(())
}

/// Writes the document as pretty JSON, atomically.
pub fn write_json(path: &Path, doc: &ResultDocument) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(doc).expect("result documents always serialize");
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Reads a result document, rejecting other schema versions, truncated files and wrong types.
pub fn read_json(path: &Path) -> Result<ResultDocument> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::ResultFile {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    parse_json(&text).map_err(|reason| Error::ResultFile {
        path: path.to_owned(),
        reason,
    })
}

/// Parses a result document from text; the error says what is wrong and what to do.
pub fn parse_json(text: &str) -> Result<ResultDocument, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        if e.is_eof() {
            format!("the file ends early ({e}); it is truncated, so rerun `divlab --bench --json`")
        } else {
            format!("not valid JSON ({e})")
        }
    })?;
    match value
        .get("schema_version")
        .and_then(serde_json::Value::as_u64)
    {
        Some(v) if v == u64::from(SCHEMA_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "schema_version {v} is not the version this divlab reads ({SCHEMA_VERSION}); \
                 use the divlab version that wrote it, or rerun the bench"
            ));
        }
        None => {
            return Err(
                "no numeric `schema_version`: this is not a divlab result document".to_owned(),
            );
        }
    }
    // Parse the text again, not the value, so that a type error names its line and column.
    serde_json::from_str(text)
        .map_err(|e| format!("does not match the result schema v{SCHEMA_VERSION}: {e}"))
}

/// Writes the document as CSV in long form: one row per metric and per verdict.
pub fn write_csv(path: &Path, doc: &ResultDocument) -> Result<()> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let rows = csv_rows(doc);
    for row in &rows {
        writer
            .write_record(row)
            .expect("writing to memory cannot fail");
    }
    let bytes = writer.into_inner().expect("writing to memory cannot fail");
    write_atomic(path, &bytes)
}

fn csv_rows(doc: &ResultDocument) -> Vec<[String; 6]> {
    let header = ["adapter", "experiment", "status", "kind", "name", "value"];
    let mut rows = vec![header.map(str::to_owned)];
    for e in &doc.experiments {
        let status = match e.status {
            ExperimentStatus::Ok => "ok",
            ExperimentStatus::Unsupported => "unsupported",
            ExperimentStatus::Error => "error",
        };
        let row = |kind: &str, name: &str, value: String| {
            [
                doc.adapter.name.clone(),
                e.id.clone(),
                status.to_owned(),
                kind.to_owned(),
                name.to_owned(),
                value,
            ]
        };
        rows.extend(
            e.metrics
                .iter()
                .map(|(k, v)| row("metric", k, v.to_string())),
        );
        rows.extend(e.verdicts.iter().map(|v| {
            row(
                "verdict",
                &v.check,
                format!("{}: {}", v.status.as_str(), v.detail),
            )
        }));
        if e.status != ExperimentStatus::Ok {
            rows.push(row("status_detail", "", e.status_detail.clone()));
        }
    }
    rows
}
