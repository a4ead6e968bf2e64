//! Reading and writing result documents: strict reads with clear errors, and writes through
//! [`write_atomic`].

use std::path::{Path, PathBuf};

use crate::report::{
    READABLE_SCHEMA_VERSIONS, ResultDocument, SCHEMA_VERSION, load, long_csv, write_atomic,
};
use crate::{Error, Result};

/// Writes the document as pretty JSON, atomically.
pub fn write_json(path: &Path, doc: &ResultDocument) -> Result<()> {
    write_atomic(path, &json_bytes(doc))
}

/// Reads a result document, rejecting other schema versions, truncated files, wrong types,
/// non-finite numbers and files too large or too deep to be one (limits in `load.rs`).
pub fn read_json(path: &Path) -> Result<ResultDocument> {
    let text = load::read_text(path).map_err(|reason| Error::ResultFile {
        path: path.to_owned(),
        reason,
    })?;
    parse_json(&text).map_err(|reason| Error::ResultFile {
        path: path.to_owned(),
        reason: reason + kernel_hint(path),
    })
}

/// For a kernel given where a result document goes, what to run instead.
fn kernel_hint(path: &Path) -> &'static str {
    if crate::user_file::is_wgsl(path) {
        "; this is a WGSL kernel, and this command reads result documents (what `divlab bench \
         --json` writes): `divlab profile FILE` profiles a kernel"
    } else {
        ""
    }
}

/// Parses a result document from text; the error names the field (`experiments[3].metrics.r2`)
/// where there is one, and says what is wrong and what to do.
pub fn parse_json(text: &str) -> Result<ResultDocument, String> {
    // Editors on Windows may add a byte-order mark; it is not content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    load::check_shape(text)?;
    check_version(text)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let doc: ResultDocument = serde_path_to_error::deserialize(&mut de).map_err(schema_error)?;
    de.end().map_err(|e| format!("not valid JSON ({e})"))?;
    load::validate(&doc)?;
    Ok(doc)
}

/// A type error, with the path of the field serde was reading (omitted at the top level).
fn schema_error(e: serde_path_to_error::Error<serde_json::Error>) -> String {
    let path = e.path().to_string();
    let at = if path == "." {
        String::new()
    } else {
        format!("{path}: ")
    };
    let inner = e.into_inner().to_string();
    // A number written as a string is often a NaN or infinity a tool could not write as JSON.
    let hint = if inner.contains("invalid type: string") && inner.contains("expected f64") {
        "; numbers must be JSON numbers, and NaN or infinity cannot be stored at all"
    } else {
        ""
    };
    format!("does not match the result schema v{SCHEMA_VERSION}: {at}{inner}{hint}")
}

/// Checks the syntax and `schema_version` in one pass that builds nothing but the version, so a
/// truncated file or another version gets its own message before any type error.
fn check_version(text: &str) -> Result<(), String> {
    let version = match serde_json::from_str::<VersionProbe>(text) {
        Ok(probe) if probe.profile => {
            return Err(
                "this is a profile (what `divlab profile --json` writes), not a bench \
                 result document: use `divlab profile --import FILE` to read it"
                    .to_owned(),
            );
        }
        Ok(probe) => probe.version.as_ref().and_then(serde_json::Value::as_u64),
        Err(e) if e.is_eof() => {
            return Err(format!(
                "the file ends early ({e}); it is truncated, so rerun `divlab --bench --json`"
            ));
        }
        Err(e) if e.is_syntax() => return Err(format!("not valid JSON ({e})")),
        // The top level is not an object.
        Err(_) => None,
    };
    match version {
        Some(v) if READABLE_SCHEMA_VERSIONS.iter().any(|&r| u64::from(r) == v) => Ok(()),
        Some(v) => Err(format!(
            "schema_version {v} is not a version this divlab reads ({}); \
             use the divlab version that wrote it, or rerun the bench",
            READABLE_SCHEMA_VERSIONS.map(|r| r.to_string()).join(", ")
        )),
        None => Err("no numeric `schema_version`: this is not a divlab result document".to_owned()),
    }
}

/// A document's `schema_version`, read while every other field is skipped unstored, and
/// whether it has a profile's `kernel` and `lines`. Only an object has them: a derived struct
/// would also accept an array, and read its first element.
struct VersionProbe {
    version: Option<serde_json::Value>,
    profile: bool,
}

impl<'de> serde::Deserialize<'de> for VersionProbe {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = VersionProbe;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut version = None;
                let (mut kernel, mut lines) = (false, false);
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    kernel |= key == "kernel";
                    lines |= key == "lines";
                    if key == "schema_version" {
                        version = Some(map.next_value()?);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(VersionProbe {
                    version,
                    profile: kernel && lines,
                })
            }
        }
        d.deserialize_map(Visitor)
    }
}

/// Writes the document as CSV in long form ([`csv_bytes`]), atomically.
pub fn write_csv(path: &Path, doc: &ResultDocument) -> Result<()> {
    write_atomic(path, &csv_bytes(doc))
}

/// The document as pretty JSON with a trailing newline: what `--json` writes.
pub fn json_bytes(doc: &ResultDocument) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(doc).expect("result documents always serialize");
    bytes.push(b'\n');
    bytes
}

/// The document as CSV in long form: the long export ([`long_csv`], docs/results.md) of this one
/// document, so that the CSVs of several runs concatenate (header rows aside) into what
/// `divlab compare --long` writes for them.
pub fn csv_bytes(doc: &ResultDocument) -> Vec<u8> {
    long_csv([doc])
}

/// Column labels for files: the file name, or the whole path where two names are the same.
pub fn file_labels(paths: &[PathBuf]) -> Vec<String> {
    let names: Vec<String> = paths
        .iter()
        .map(|p| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        })
        .collect();
    names
        .iter()
        .zip(paths)
        .map(|(name, path)| {
            if names.iter().filter(|n| *n == name).count() > 1 {
                path.display().to_string()
            } else {
                name.clone()
            }
        })
        .collect()
}

/// Every result file that could not be read, so one run names all of them.
#[derive(Debug)]
pub struct ReadErrors(pub Vec<Error>);

impl std::fmt::Display for ReadErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.as_slice() {
            [one] => write!(f, "{one}"),
            all => {
                write!(f, "{} result files cannot be read:", all.len())?;
                all.iter().try_for_each(|e| write!(f, "\n  {e}"))
            }
        }
    }
}

impl std::error::Error for ReadErrors {}

/// Reads every file, labelled by [`file_labels`]; an error lists every file that failed.
pub fn read_documents(paths: &[PathBuf]) -> Result<Vec<(String, ResultDocument)>, ReadErrors> {
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for (label, path) in file_labels(paths).into_iter().zip(paths) {
        match read_json(path) {
            Ok(doc) => docs.push((label, doc)),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(docs)
    } else {
        Err(ReadErrors(errors))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::file_labels;

    #[test]
    fn labels_disambiguate_equal_names() {
        let paths = [
            PathBuf::from("a/x.json"),
            PathBuf::from("b/x.json"),
            PathBuf::from("y.json"),
        ];
        assert_eq!(file_labels(&paths), ["a/x.json", "b/x.json", "y.json"]);
    }
}
