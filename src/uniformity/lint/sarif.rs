//! A SARIF 2.1.0 log, as GitHub code scanning reads it: one run, the three rules with stable
//! ids, one result per diagnostic with its region, the reason chain as `relatedLocations`, and
//! a `partialFingerprints` entry that survives edits elsewhere in the file. Inputs that could not
//! be checked are `toolExecutionNotifications`, and make the invocation unsuccessful.
//!
//! Where the files are: a path under the root (`--sarif-root DIR`, else the current directory)
//! is a relative URI with `uriBaseId` `%SRCROOT%`, which `originalUriBaseIds` anchors to the
//! root's absolute `file://` URI, so a run from a subdirectory still names files from the
//! repository's root. Any other path is an absolute `file://` URI.

use std::path::{Component, Path, PathBuf};

use serde_json::{Value, json};

use super::{Checked, Positions, Problem, level, positions};
use crate::uniformity::{Analysis, Diagnostic, Rule};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const INFORMATION_URI: &str = "https://www.w3.org/TR/WGSL/#uniformity";
/// The `uriBaseId` of every relative URI, as GitHub's own tools name the checkout's root.
const SRCROOT: &str = "%SRCROOT%";

/// Where the log's relative URIs start.
#[derive(Clone, Debug)]
pub struct Anchor {
    /// The root, absolute and without `.` or `..`.
    root: PathBuf,
    /// Where relative paths given on the command line start: the current directory.
    cwd: PathBuf,
    /// Whether `--sarif-root` named it: then absolute paths under it are written relative to
    /// it too; otherwise an absolute path is written as given, a `file://` URI.
    explicit: bool,
}

impl Anchor {
    /// The root `--sarif-root` names (relative to `cwd`), or `cwd` itself.
    pub fn new(root: Option<&Path>, cwd: &Path) -> Self {
        Anchor {
            root: lexical_absolute(root.unwrap_or(cwd), cwd),
            cwd: cwd.to_owned(),
            explicit: root.is_some(),
        }
    }

    /// `file`'s artifact location: relative to the root with `%SRCROOT%` when it lies below
    /// it, otherwise an absolute `file://` URI; `None` for standard input, which has no URI.
    fn artifact(&self, file: &str) -> Option<Value> {
        if file == "<stdin>" {
            return None;
        }
        let given = Path::new(file);
        let absolute = lexical_absolute(given, &self.cwd);
        let below = absolute.strip_prefix(&self.root).ok();
        match below {
            Some(relative) if self.explicit || given.is_relative() => Some(json!({
                "uri": encode(&relative.to_string_lossy(), false),
                "uriBaseId": SRCROOT,
            })),
            _ => Some(json!({ "uri": file_uri(&absolute) })),
        }
    }

    /// `originalUriBaseIds`: `%SRCROOT%` as the root's `file://` URI (ending in `/`).
    fn base_ids(&self) -> Value {
        let mut uri = file_uri(&self.root);
        if !uri.ends_with('/') {
            uri.push('/');
        }
        json!({ SRCROOT: {
            "uri": uri,
            "description": { "text": "The directory the relative URIs start from (--sarif-root, else where divlab ran)." },
        }})
    }
}

/// `path` made absolute against `base` (itself absolute), with `.` and `..` resolved by name,
/// not through the file system: the names stay the ones given (symbolic links unresolved).
fn lexical_absolute(path: &Path, base: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in base.join(path).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// An absolute path as a `file://` URI: `file:///home/me/a%20b.wgsl`, `file:///C:/x.wgsl`.
fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let slash = if text.starts_with('/') { "" } else { "/" };
    format!("file://{slash}{}", encode(&text, true))
}

/// Percent-encodes what a URI's path may not hold (RFC 3986: unreserved, sub-delims, `@` and
/// `/` stay; `:` too in an absolute path, where it cannot be read as a scheme), byte by byte
/// of the UTF-8 text; backslashes become `/`.
fn encode(path: &str, absolute: bool) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.replace('\\', "/").bytes() {
        let keep = byte.is_ascii_alphanumeric()
            || b"-._~!$&'()*+,;=@/".contains(&byte)
            || (absolute && byte == b':');
        if keep {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

pub fn render(checked: &[Checked], anchor: &Anchor) -> String {
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for c in checked {
        match &c.outcome {
            Ok(analysis) => {
                results.extend(
                    analysis
                        .diagnostics
                        .iter()
                        .map(|d| result(anchor, analysis, d)),
                );
            }
            Err(problem) => notifications.push(notification(anchor, &c.name, problem)),
        }
    }
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id(),
                "name": rule_name(*rule),
                "shortDescription": { "text": rule.description() },
                "fullDescription": { "text": rule.description() },
                "help": { "text": rule.help() },
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
                "informationUri": env!("CARGO_PKG_HOMEPAGE"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": notifications.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "originalUriBaseIds": anchor.base_ids(),
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let mut text = serde_json::to_string_pretty(&log).expect("the log serializes");
    text.push('\n');
    text
}

/// A rule's name for people (SARIF wants it to differ from the opaque id).
fn rule_name(rule: Rule) -> &'static str {
    match rule {
        Rule::Barrier => "UniformControlFlowForBarriers",
        Rule::SubgroupUniformity => "SubgroupUniformControlFlow",
        Rule::DerivativeUniformity => "DerivativeUniformControlFlow",
    }
}

fn region(p: Positions) -> Value {
    json!({
        "startLine": p.line_start,
        "startColumn": p.column_start,
        "endLine": p.line_end,
        "endColumn": p.column_end,
    })
}

/// A location in `file`; standard input has none (SARIF needs a URI), so its findings give
/// the line and column in their message instead.
fn location(anchor: &Anchor, file: &str, p: Positions) -> Option<Value> {
    Some(json!({
        "physicalLocation": {
            "artifactLocation": anchor.artifact(file)?,
            "region": region(p),
        }
    }))
}

fn result(anchor: &Anchor, analysis: &Analysis, d: &Diagnostic) -> Value {
    let source = analysis.source();
    let related: Vec<Value> = d
        .labels
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let mut loc = location(anchor, &analysis.file, positions(source, l.range.clone()))?;
            loc["id"] = json!(i + 1);
            loc["message"] = json!({ "text": l.message });
            Some(loc)
        })
        .collect();
    let rule_index = Rule::ALL.iter().position(|r| *r == d.rule).unwrap_or(0);
    let at = positions(source, d.range.clone());
    let primary = location(anchor, &analysis.file, at);
    let mut text = format!("{}: {}", d.message, d.reason);
    if primary.is_none() {
        text = format!(
            "{}:{}:{}: {text}",
            analysis.file, at.line_start, at.column_start
        );
    }
    json!({
        "ruleId": d.rule.id(),
        "ruleIndex": rule_index,
        "level": level(d.severity),
        "message": { "text": text },
        "locations": primary.into_iter().collect::<Vec<_>>(),
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

fn notification(anchor: &Anchor, name: &str, problem: &Problem) -> Value {
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
        if let Some(loc) = location(anchor, name, p) {
            n["locations"] = json!([loc]);
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri_of(anchor: &Anchor, file: &str) -> Value {
        anchor.artifact(file).unwrap()
    }

    #[test]
    fn relative_paths_hang_from_the_root_and_absolute_ones_are_file_uris() {
        let here = Anchor::new(None, Path::new("/repo/sub"));
        assert_eq!(
            uri_of(&here, "./a b%.wgsl"),
            json!({ "uri": "a%20b%25.wgsl", "uriBaseId": "%SRCROOT%" })
        );
        assert_eq!(
            uri_of(&here, "/repo/sub/x.wgsl"),
            json!({ "uri": "file:///repo/sub/x.wgsl" })
        );
        // Above the root: no `..` in a relative URI, the absolute one instead.
        assert_eq!(
            uri_of(&here, "../y.wgsl"),
            json!({ "uri": "file:///repo/y.wgsl" })
        );
        assert_eq!(here.base_ids()["%SRCROOT%"]["uri"], "file:///repo/sub/");
        // A run from a subdirectory with the repository's root named.
        let root = Anchor::new(Some(Path::new("..")), Path::new("/repo/sub"));
        assert_eq!(
            uri_of(&root, "k.wgsl"),
            json!({ "uri": "sub/k.wgsl", "uriBaseId": "%SRCROOT%" })
        );
        assert_eq!(
            uri_of(&root, "/repo/sub/k.wgsl"),
            json!({ "uri": "sub/k.wgsl", "uriBaseId": "%SRCROOT%" })
        );
        assert_eq!(
            uri_of(&root, "/elsewhere/é:.wgsl")["uri"],
            "file:///elsewhere/%C3%A9:.wgsl"
        );
        assert_eq!(uri_of(&root, "c:d.wgsl")["uri"], "sub/c%3Ad.wgsl");
        assert!(root.artifact("<stdin>").is_none());
    }
}
