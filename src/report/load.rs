//! Reading result documents that come from strangers: bounded in size, depth and array length,
//! finite in every number, and every error names the file and the field.
//!
//! `serde` alone would read a 2 GiB file into memory, report a `NaN` written by Python as
//! "expected value at line 9 column 20", and name no field. So a read goes: a size cap before
//! reading, one allocation-free pass over the text that knows the field path at every byte (depth,
//! array lengths, non-JSON numbers), the typed parse with its path, then checks serde cannot make
//! (finite numbers, lane arrays that agree).

use std::fmt::Write as _;
use std::path::Path;

use crate::report::ResultDocument;
use crate::user_file::{self, ReadError};

/// Largest result file divlab reads. Real ones are well under 1 MiB (the H200's is 160 KiB).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Deepest nesting of arrays and objects. A document nests about 8 levels; serde_json stops at
/// 128 with a message that names no field, so this check comes first.
pub const MAX_DEPTH: usize = 64;
/// Most entries in one array (series points, lane records, a parameter's list).
pub const MAX_ARRAY_LEN: usize = 1_000_000;
/// Most lanes in one lane record: WGSL's largest subgroup size.
pub const MAX_LANES: usize = 128;

/// Reads `path` as UTF-8 text, refusing files over [`MAX_FILE_BYTES`] and anything but a
/// regular file (a FIFO would block, a device never end) before reading them.
pub(crate) fn read_text(path: &Path) -> Result<String, String> {
    let too_big = |size: &str| {
        format!(
            "the file is {size}; divlab reads result files up to {} MiB (real ones are under \
             1 MiB), so this is not a result file divlab wrote",
            MAX_FILE_BYTES >> 20
        )
    };
    let bytes = user_file::read_at_most(path, MAX_FILE_BYTES).map_err(|e| match e {
        ReadError::NotRegular("a directory") => "it is a directory, not a result file".to_owned(),
        ReadError::TooLarge(Some(len)) => too_big(&format!("{len} bytes")),
        ReadError::TooLarge(None) => too_big("larger than that"),
        other => other.to_string(),
    })?;
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err("the file is UTF-16 text; save it as UTF-8 (divlab writes UTF-8)".to_owned());
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (invalid byte at offset {}); a result file is UTF-8 JSON",
            e.utf8_error().valid_up_to()
        )
    })
}

/// One open container while walking the text.
enum Frame {
    /// An object: the byte range of the current key, and whether a key comes next.
    Object {
        key: Option<(usize, usize)>,
        expect_key: bool,
    },
    /// An array: the index of the current entry.
    Array { index: usize },
}

/// Walks the JSON text once, without allocating per value, and rejects what serde would either
/// take unbounded memory for or report without a field: nesting deeper than [`MAX_DEPTH`],
/// arrays longer than [`MAX_ARRAY_LEN`], `NaN`/`Infinity` tokens and numbers that overflow to
/// infinity. Malformed JSON is left to serde, which says where the syntax breaks.
pub(crate) fn check_shape(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' | b':' => i += 1,
            b'"' => {
                let start = i + 1;
                let Some(end) = string_end(bytes, start) else {
                    return Ok(());
                };
                if let Some(Frame::Object { key, expect_key }) = stack.last_mut()
                    && *expect_key
                {
                    *key = Some((start, end));
                    *expect_key = false;
                }
                i = end + 1;
            }
            open @ (b'{' | b'[') => {
                if stack.len() >= MAX_DEPTH {
                    return Err(format!(
                        "{}: nested more than {MAX_DEPTH} levels deep; a result document nests \
                         about 8, so this is not one divlab wrote",
                        render_path(text, &stack)
                    ));
                }
                stack.push(if open == b'{' {
                    Frame::Object {
                        key: None,
                        expect_key: true,
                    }
                } else {
                    Frame::Array { index: 0 }
                });
                i += 1;
            }
            b'}' | b']' => {
                if stack.pop().is_none() {
                    return Ok(());
                }
                i += 1;
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Object { expect_key, .. }) => *expect_key = true,
                    Some(Frame::Array { index }) => {
                        *index += 1;
                        if *index >= MAX_ARRAY_LEN {
                            let array = &stack[..stack.len() - 1];
                            return Err(format!(
                                "{}: more than {MAX_ARRAY_LEN} entries in one array; divlab \
                                 refuses arrays that long (real documents hold hundreds)",
                                render_path(text, array)
                            ));
                        }
                    }
                    None => return Ok(()),
                }
                i += 1;
            }
            _ => {
                let end = bytes[i..]
                    .iter()
                    .position(|b| {
                        matches!(
                            b,
                            b' ' | b'\t'
                                | b'\r'
                                | b'\n'
                                | b','
                                | b':'
                                | b'['
                                | b']'
                                | b'{'
                                | b'}'
                                | b'"'
                        )
                    })
                    .map_or(bytes.len(), |n| i + n);
                check_scalar(&text[i..end])
                    .map_err(|why| format!("{}: {why}", render_path(text, &stack)))?;
                i = end;
            }
        }
    }
    Ok(())
}

/// The index of the quote that closes the string whose text starts at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Rejects the non-JSON numbers that real tools write (Python's `json` writes `NaN` and
/// `Infinity`) and numbers that would read as infinity. Other bad tokens are serde's to report.
fn check_scalar(token: &str) -> Result<(), String> {
    let bare = token.trim_start_matches(['-', '+']);
    if ["nan", "inf", "infinity"]
        .iter()
        .any(|word| bare.eq_ignore_ascii_case(word))
    {
        return Err(format!(
            "`{}` is not a JSON number: JSON has no NaN or infinity, and divlab never writes \
             them (Python's json module does unless allow_nan=False)",
            shorten(token, 40)
        ));
    }
    let numeric = token.starts_with(|c: char| c == '-' || c.is_ascii_digit());
    // Only a number with an exponent or over 300 digits can overflow an f64.
    if numeric
        && (token.contains(['e', 'E']) || token.len() > 300)
        && token.parse::<f64>().is_ok_and(f64::is_infinite)
    {
        return Err(format!(
            "{} is beyond the range of a 64-bit float (it would read as infinity)",
            shorten(token, 40)
        ));
    }
    Ok(())
}

/// `experiments[3].metrics.r2`, from the open containers; long paths keep their ends.
fn render_path(text: &str, stack: &[Frame]) -> String {
    let segments: Vec<String> = stack
        .iter()
        .filter_map(|frame| match frame {
            Frame::Object {
                key: Some((s, e)), ..
            } => Some(format!(".{}", shorten(&text[*s..*e], 60))),
            Frame::Object { key: None, .. } => None,
            Frame::Array { index } => Some(format!("[{index}]")),
        })
        .collect();
    let mut out = String::new();
    if segments.len() > 12 {
        out.extend(segments[..8].iter().cloned());
        let _ = write!(out, "…({} more)…", segments.len() - 10);
        out.extend(segments[segments.len() - 2..].iter().cloned());
    } else {
        out.extend(segments);
    }
    match out.strip_prefix('.') {
        Some(rest) => rest.to_owned(),
        None if out.is_empty() => "(top level)".to_owned(),
        None => out,
    }
}

/// At most `max` characters of `s`, with `…` where it was cut.
fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}

/// Checks a parsed document for what its types cannot say: every number finite, and lane
/// records whose arrays agree in length and fit a subgroup. Consumers (tables, charts, the lane
/// grid) index these arrays and divide by these numbers without further checks.
pub(crate) fn validate(doc: &ResultDocument) -> Result<(), String> {
    let finite = |value: f64, path: &dyn Fn() -> String| {
        if value.is_finite() {
            Ok(())
        } else {
            Err(format!("{}: {value} is not a finite number", path()))
        }
    };
    for (i, e) in doc.experiments.iter().enumerate() {
        for (name, v) in &e.metrics {
            finite(*v, &|| format!("experiments[{i}].metrics.{name}"))?;
        }
        for (j, s) in e.series.iter().enumerate() {
            for (k, p) in s.points.iter().enumerate() {
                let at = |field: &str| format!("experiments[{i}].series[{j}].points[{k}].{field}");
                finite(p.x, &|| at("x"))?;
                finite(p.y, &|| at("y"))?;
                if let Some(v) = p.y_min {
                    finite(v, &|| at("y_min"))?;
                }
                if let Some(v) = p.y_max {
                    finite(v, &|| at("y_max"))?;
                }
            }
        }
        for (j, lane) in e.lanes.iter().enumerate() {
            let at = |field: &str| format!("experiments[{i}].lanes[{j}].{field}");
            let n = lane.local_index.len();
            if n > MAX_LANES {
                return Err(format!(
                    "{}: {n} lanes, but a subgroup has at most {MAX_LANES}",
                    at("local_index")
                ));
            }
            for (field, len) in [("ballot", lane.ballot.len()), ("value", lane.value.len())] {
                if len != n {
                    return Err(format!(
                        "{}: {len} entries, but local_index has {n} (one per lane)",
                        at(field)
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_the_field() {
        let text = r#"{"experiments": [{"id": "a"}, {"metrics": {"r2": NaN}}]}"#;
        let err = check_shape(text).unwrap_err();
        assert!(err.starts_with("experiments[1].metrics.r2: `NaN`"), "{err}");
        let err = check_shape(r#"{"a": {"b\"c": [1, 2, -Infinity]}}"#).unwrap_err();
        assert!(err.starts_with(r#"a.b\"c[2]: `-Infinity`"#), "{err}");
    }

    #[test]
    fn overflowing_numbers_are_rejected_and_large_finite_ones_pass() {
        let err = check_shape(r#"{"x": [1e999]}"#).unwrap_err();
        assert!(err.starts_with("x[0]: 1e999 is beyond"), "{err}");
        check_shape(r#"{"x": [1.7976931348623157e308, -1e-999, 0e999]}"#).unwrap();
        // serde_json refuses the overflow too, but names no field; the shape check comes first.
        assert!(serde_json::from_str::<f64>("1e999").is_err());
    }

    #[test]
    fn depth_and_length_limits() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let err = check_shape(&deep).unwrap_err();
        assert!(err.contains("nested more than 64 levels"), "{err}");
        assert!(err.contains("more)…"), "a long path is shortened: {err}");
        check_shape(&format!(
            "{}{}",
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        ))
        .unwrap();
        let long = format!("{{\"p\": [{}0]}}", "0,".repeat(MAX_ARRAY_LEN));
        let err = check_shape(&long).unwrap_err();
        assert!(err.starts_with("p: more than 1000000 entries"), "{err}");
    }

    #[test]
    fn only_an_object_is_a_document() {
        for text in ["[1]", "[1, 2, 3]", "1", "\"schema_version\"", "null"] {
            let err = crate::report::parse_json(text).unwrap_err();
            assert!(
                err.contains("not a divlab result document"),
                "{text}: {err}"
            );
        }
    }

    #[test]
    fn strings_hide_structure() {
        check_shape(r#"{"a": "[[[[{{NaN,,,\"]]]", "b": "\\"}"#).unwrap();
    }
}
