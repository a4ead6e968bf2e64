//! Reading a profile document back (`divlab profile --import FILE`). Every way a file can fail
//! to be one (unreadable, truncated, not JSON, another kind of document, another schema, a
//! damaged field) gets its own message that says what is wrong and what to do.

use std::path::Path;

use serde_json::Value;

use super::{PROFILE_SCHEMA_VERSION, Profile};
use crate::profile::Error as ProfileError;

/// Largest file `--import` reads. A profile with every lane record kept is under 10 MiB.
pub const MAX_PROFILE_BYTES: u64 = 64 * 1024 * 1024;

/// What `divlab profile --json` writes, for the messages.
const REWRITE: &str = "write it again with `divlab profile KERNEL.wgsl --json FILE`";

/// Reads the profile document at `path`.
pub fn read_profile(path: &Path) -> Result<Profile, ProfileError> {
    let bad = |problem: String| ProfileError::BadDocument {
        path: path.to_owned(),
        problem,
    };
    let text = read_text(path).map_err(bad)?;
    parse_profile(&text).map_err(|problem| {
        if crate::user_file::is_wgsl(path) {
            bad(format!(
                "{problem}; this is a WGSL kernel: leave out --import to profile it"
            ))
        } else {
            bad(problem)
        }
    })
}

/// Parses a profile document; the error says what is wrong and what to do.
pub fn parse_profile(text: &str) -> Result<Profile, String> {
    // Editors on Windows may add a byte-order mark; it is not content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let at = format!("line {}, column {}", e.line(), e.column());
        if e.is_eof() {
            format!("the JSON ends early ({at}): the file is truncated; {REWRITE}")
        } else if e.to_string().contains("recursion limit") {
            format!(
                "nested deeper than any profile document ({at}; the reader stops at 128 \
                 levels): not a profile; {REWRITE}"
            )
        } else if e.is_syntax() {
            format!(
                "not JSON (a syntax error at {at}); --import reads the JSON document that \
                 `divlab profile --json FILE` writes"
            )
        } else {
            format!("not a profile document ({e}); {REWRITE}")
        }
    })?;
    check_kind(&value)?;
    let profile: Profile = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        format!(
            "does not match profile schema {PROFILE_SCHEMA_VERSION} at `{path}` ({}): the \
             file was edited or damaged; {REWRITE}",
            e.into_inner()
        )
    })?;
    check_counts(&profile)?;
    Ok(profile)
}

/// Refuses counts no run can produce (more active lanes than the executions had lanes, more
/// divergent evaluations than evaluations), which only an edit makes: printed, they would read
/// as a profile ("7812.5 lanes, 100%").
fn check_counts(profile: &Profile) -> Result<(), String> {
    let impossible = |at: String, what: String| {
        Err(format!(
            "`{at}`: {what}, which no run produces: the file was edited or damaged; {REWRITE}"
        ))
    };
    for (i, l) in profile.lines.iter().enumerate() {
        let (Some(lanes), Some(width)) = (l.active_lanes, profile.subgroup_size) else {
            continue;
        };
        if lanes > l.executions.saturating_mul(u64::from(width)) {
            return impossible(
                format!("lines[{i}].active_lanes"),
                format!(
                    "{lanes} active lanes in {} executions of subgroups of {width}",
                    l.executions
                ),
            );
        }
    }
    for (i, b) in profile.branches.iter().enumerate() {
        if b.divergent > b.executions {
            return impossible(
                format!("branches[{i}].divergent"),
                format!("{} divergent of {} evaluations", b.divergent, b.executions),
            );
        }
    }
    Ok(())
}

/// A profile of this schema, or a message that names what the document is instead.
fn check_kind(value: &Value) -> Result<(), String> {
    let Some(object) = value.as_object() else {
        return Err(format!(
            "not a profile document: the JSON is {}, not an object; {REWRITE}",
            match value {
                Value::Array(_) => "an array",
                Value::String(_) => "a string",
                Value::Number(_) => "a number",
                Value::Bool(_) => "a boolean",
                _ => "null",
            }
        ));
    };
    if object.contains_key("experiments") {
        return Err(
            "a `divlab bench` result document, not a profile: read it with `divlab \
                    compare` or `divlab table`; --import reads what `divlab profile --json` \
                    writes"
                .to_owned(),
        );
    }
    if !is_profile(value) {
        return Err(format!(
            "not a profile document (it has no `kernel` and `lines`); {REWRITE}"
        ));
    }
    match object.get("schema_version").and_then(Value::as_u64) {
        // Schema 3 added only optional fields (the costs): a schema 2 document reads as one
        // without them.
        Some(v) if v == u64::from(PROFILE_SCHEMA_VERSION) || v == 2 => Ok(()),
        Some(v) if v < u64::from(PROFILE_SCHEMA_VERSION) => Err(format!(
            "a profile of schema {v}, written by an older divlab; this divlab reads schema \
             {PROFILE_SCHEMA_VERSION}, which records the request and the source: profile the \
             kernel again with --json"
        )),
        Some(v) => Err(format!(
            "a profile of schema {v}, written by a newer divlab; this divlab reads schema \
             {PROFILE_SCHEMA_VERSION}: import it with the divlab that wrote it"
        )),
        None => Err(format!(
            "no numeric `schema_version`, so not a profile document divlab wrote; {REWRITE}"
        )),
    }
}

/// Whether a JSON value has the shape of a profile document (a `kernel` and its `lines`), as
/// opposed to a result document or anything else.
pub fn is_profile(value: &Value) -> bool {
    value.get("kernel").is_some() && value.get("lines").is_some()
}

/// The file as UTF-8 text, refusing files over [`MAX_PROFILE_BYTES`] and anything but a regular
/// file (a FIFO would block, a device never end) before reading them.
fn read_text(path: &Path) -> Result<String, String> {
    use crate::user_file::{ReadError, read_at_most};
    let bytes = read_at_most(path, MAX_PROFILE_BYTES).map_err(|e| match e {
        ReadError::NotRegular("a directory") => "a directory, not a profile document".to_owned(),
        ReadError::TooLarge(_) => format!(
            "larger than {} MiB, so not a profile document divlab wrote",
            MAX_PROFILE_BYTES >> 20
        ),
        ReadError::NotRegular(_) => e.to_string(),
        ReadError::Io(e) => format!("cannot read it: {e}"),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (an invalid byte at offset {}); a profile document is UTF-8 JSON",
            e.utf8_error().valid_up_to()
        )
    })
}
