//! The result document: a real bench run survives JSON exactly, and damaged files give clear
//! `Error::ResultFile`s instead of panics or silent garbage.

use std::path::{Path, PathBuf};

use divlab::Error;
use divlab::report::{ResultDocument, SCHEMA_VERSION, read_json, write_json};
use serde_json::{Value, json};

use crate::util;
use crate::util::{bench_doc, expected_subgroup_size, path_in, temp_dir};

/// Doubles that serde_json's default (not `float_roundtrip`) parser reads back one ulp off.
/// About 9% of arbitrary doubles are like this, so bench metrics (CVs, ratios, GFLOP/s) hit it
/// at random; these make the check deterministic.
const HARD_DOUBLES: [f64; 4] = [
    11.290774160688077,
    0.9587872702291189,
    3.5253645966516722,
    9.101171799881557,
];

/// Metrics whose value changed on the way through the file, with their bit patterns.
fn changed_metrics(written: &ResultDocument, read: &ResultDocument) -> Vec<String> {
    let mut out = Vec::new();
    for (w, r) in written.experiments.iter().zip(&read.experiments) {
        for (name, value) in &w.metrics {
            match r.metrics.get(name) {
                Some(back) if back.to_bits() == value.to_bits() => {}
                back => out.push(format!("{}.{name}: wrote {value:?}, read {back:?}", w.id)),
            }
        }
    }
    out
}

#[test]
fn result_document_round_trips() {
    let _gpu = util::gpu_shared();
    let mut doc = bench_doc().clone();
    let experiment = &doc.experiments[0];
    assert_eq!(doc.schema_version, SCHEMA_VERSION);
    assert_eq!(
        doc.adapter.observed_subgroup_size,
        Some(expected_subgroup_size())
    );
    assert!(
        experiment.metrics.contains_key("fma_ns"),
        "metrics: {:?}",
        experiment.metrics
    );
    for (i, v) in HARD_DOUBLES.into_iter().enumerate() {
        doc.experiments[0].metric(&format!("test_hard_double_{i}"), v);
    }

    let dir = temp_dir();
    let path = path_in(&dir, "result.json");
    write_json(&path, &doc).unwrap_or_else(|e| panic!("write_json failed: {e}"));
    let read = read_json(&path).unwrap_or_else(|e| panic!("read_json rejected its own file: {e}"));
    let changed = changed_metrics(&doc, &read);
    assert!(
        changed.is_empty(),
        "metrics changed on the way through JSON:\n  {}\nserde_json parses floats lossily unless \
         its `float_roundtrip` feature is on: in Cargo.toml use \
         `serde_json = {{ version = \"1\", features = [\"float_roundtrip\"] }}`",
        changed.join("\n  ")
    );
    assert_eq!(
        read, doc,
        "the document read back differs from the one written"
    );
}

/// Writes the real document to `dir/name`, returns its path and text.
fn real_file(dir: &tempfile::TempDir, name: &str) -> (PathBuf, String) {
    let path = path_in(dir, name);
    write_json(&path, bench_doc()).unwrap_or_else(|e| panic!("write_json failed: {e}"));
    let text = std::fs::read_to_string(&path).expect("just written");
    (path, text)
}

/// Reads `path` expecting `Error::ResultFile` for it whose reason contains every needle.
/// Returns a description of what went wrong, or `None` when it is as expected.
fn check_rejected(path: &Path, case: &str, needles: &[&str]) -> Option<String> {
    match read_json(path) {
        Err(e @ Error::ResultFile { .. }) => {
            let shown = e.to_string();
            let Error::ResultFile { path: p, reason } = e else {
                unreachable!()
            };
            let missing: Vec<&&str> = needles.iter().filter(|n| !reason.contains(**n)).collect();
            if p != path {
                Some(format!("{case}: the error names {p:?}, not {path:?}"))
            } else if !shown.contains(&path.display().to_string()) {
                Some(format!(
                    "{case}: the message does not name the file: {shown}"
                ))
            } else if !missing.is_empty() {
                Some(format!("{case}: the reason lacks {missing:?}: {reason}"))
            } else {
                None
            }
        }
        Err(other) => Some(format!("{case}: expected Error::ResultFile, got {other:?}")),
        Ok(_) => Some(format!("{case}: the damaged file was accepted")),
    }
}

#[test]
fn truncated_json_says_truncated() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let (_, text) = real_file(&dir, "whole.json");
    let mut failures = Vec::new();
    for (label, cut) in [
        ("a quarter", text.len() / 4),
        ("half", text.len() / 2),
        ("three quarters", 3 * text.len() / 4),
        ("all but the closing brace", text.trim_end().len() - 1),
    ] {
        // Cut on a character boundary: the file has non-ASCII text (the rule cites "§").
        let cut = (0..=cut)
            .rev()
            .find(|i| text.is_char_boundary(*i))
            .expect("0 is a boundary");
        let path = path_in(&dir, &format!("cut-{cut}.json"));
        std::fs::write(&path, &text[..cut]).expect("writing the cut file");
        let case = format!("cut to {label} ({cut} of {} bytes)", text.len());
        failures.extend(check_rejected(&path, &case, &["truncated"]));
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// One way to damage a document, and what the error must say about it.
struct Damage {
    case: &'static str,
    damage: fn(&mut Value),
    needles: &'static [&'static str],
}

fn first_experiment(doc: &mut Value) -> &mut Value {
    &mut doc["experiments"][0]
}

const DAMAGES: &[Damage] = &[
    Damage {
        case: "schema_version as a string",
        damage: |d| d["schema_version"] = json!("1"),
        needles: &["schema_version"],
    },
    Damage {
        case: "another schema_version",
        damage: |d| d["schema_version"] = json!(999),
        needles: &["schema_version", "999"],
    },
    Damage {
        case: "no schema_version",
        damage: |d| {
            d.as_object_mut()
                .expect("an object")
                .remove("schema_version");
        },
        needles: &["schema_version"],
    },
    Damage {
        case: "a metric as a string",
        damage: |d| first_experiment(d)["metrics"]["fma_ns"] = json!("fast"),
        needles: &["invalid type", "\"fast\"", "f64"],
    },
    Damage {
        case: "an unknown top-level field",
        damage: |d| d["extra_field"] = json!(true),
        needles: &["unknown field", "extra_field"],
    },
    Damage {
        case: "an unknown field in the adapter",
        damage: |d| d["adapter"]["colour"] = json!("green"),
        needles: &["unknown field", "colour"],
    },
    Damage {
        case: "a missing adapter",
        damage: |d| {
            d.as_object_mut().expect("an object").remove("adapter");
        },
        needles: &["missing field", "adapter"],
    },
    Damage {
        case: "an unknown verdict status",
        damage: |d| first_experiment(d)["verdicts"][0]["status"] = json!("maybe"),
        needles: &["unknown variant", "maybe"],
    },
    Damage {
        case: "an unknown experiment status",
        damage: |d| first_experiment(d)["status"] = json!("fine"),
        needles: &["unknown variant", "fine"],
    },
    Damage {
        case: "a negative subgroup size",
        damage: |d| d["adapter"]["subgroup_min_size"] = json!(-8),
        needles: &["invalid value", "-8"],
    },
    Damage {
        case: "an array instead of a document",
        damage: |d| *d = json!([1, 2, 3]),
        needles: &["schema_version"],
    },
];

#[test]
fn mistyped_json_is_a_clear_error() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let (_, text) = real_file(&dir, "whole.json");
    let original: Value = serde_json::from_str(&text).expect("write_json wrote JSON");
    let mut failures = Vec::new();
    for (i, d) in DAMAGES.iter().enumerate() {
        let mut value = original.clone();
        (d.damage)(&mut value);
        assert_ne!(value, original, "{}: the damage changed nothing", d.case);
        let path = path_in(&dir, &format!("damaged-{i}.json"));
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&value).expect("serializes"),
        )
        .expect("writing the damaged file");
        failures.extend(check_rejected(&path, d.case, d.needles));
    }
    let path = path_in(&dir, "not-json.json");
    std::fs::write(&path, "adapter: llvmpipe\n").expect("writing");
    failures.extend(check_rejected(
        &path,
        "not JSON at all",
        &["not valid JSON"],
    ));
    let kernel = path_in(&dir, "mine.wgsl");
    std::fs::write(&kernel, "@compute @workgroup_size(1) fn main() {}\n").expect("writing");
    failures.extend(check_rejected(
        &kernel,
        "a kernel given for a result file",
        &["not valid JSON", "WGSL kernel", "divlab profile FILE"],
    ));
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn missing_file_is_a_result_file_error() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let path = path_in(&dir, "does-not-exist.json");
    // The reason is the system's own word for this file, and the message names the file.
    let not_found = std::fs::File::open(&path)
        .expect_err("the file does not exist")
        .to_string();
    let failure = check_rejected(&path, "a missing file", &[&not_found]);
    assert_eq!(failure, None);
}

/// `docs/results.md` describes the schema; its example must parse strictly, so a renamed or new
/// required field shows up here.
#[test]
fn documented_example_parses() {
    let _gpu = util::gpu_shared();
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/results.md"))
        .expect("docs/results.md exists");
    let example = docs
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/results.md has a ```json example");
    divlab::report::parse_json(example)
        .unwrap_or_else(|e| panic!("the example in docs/results.md does not parse: {e}"));
}

/// Every field name a real document has is documented in `docs/results.md` as `name`.
#[test]
fn every_field_is_documented() {
    let _gpu = util::gpu_shared();
    fn field_names(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    out.push(key.clone());
                    // Keys inside these maps are data (parameter and metric names), not schema.
                    if key != "params" && key != "metrics" {
                        field_names(v, out);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| field_names(v, out)),
            _ => {}
        }
    }
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/results.md"))
        .expect("docs/results.md exists");
    let value = serde_json::to_value(bench_doc()).expect("serializes");
    let mut names = Vec::new();
    field_names(&value, &mut names);
    names.sort();
    names.dedup();
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !docs.contains(&format!("`{n}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/results.md does not document {missing:?}"
    );
}

/// Schema 2 only added the verdict status `inconclusive`, so a schema 1 file (a real lavapipe
/// run, cut to three experiments) still reads, every field intact.
#[test]
fn schema_1_documents_still_read() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/schema1-lavapipe-sg8.json"
    );
    let doc = read_json(Path::new(path)).expect("a schema 1 document reads");
    assert_eq!(doc.schema_version, 1);
    assert_ne!(doc.schema_version, SCHEMA_VERSION);
    let raw: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let ids: Vec<&str> = doc.experiments.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        ["subgroup.size", "divergence.switch", "convergence.if_else"]
    );
    let switch = &doc.experiments[1];
    assert_eq!(
        switch.metrics["serialization_at_sg"],
        raw["experiments"][1]["metrics"]["serialization_at_sg"]
            .as_f64()
            .unwrap()
    );
    assert_eq!(
        switch.verdicts.len(),
        raw["experiments"][1]["verdicts"].as_array().unwrap().len()
    );
}

/// The SG 8 reference, a real document from a real run.
fn sg8_reference() -> ResultDocument {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/reference/lavapipe-sg8.json");
    read_json(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Adapter names come from drivers and file names from users: `divlab table` escapes them, so
/// a `|` cannot add a column and `*`/`<b>` cannot format the table.
#[test]
fn key_table_escapes_markdown() {
    let _cpu = util::gpu_shared();
    let mut doc = sg8_reference();
    doc.adapter.name = "Evil | GPU *v2* <b>x</b> `y`".to_owned();
    let docs = [("a|b.json".to_owned(), doc)];
    let table = divlab::report::markdown_key_table(&docs, &divlab::experiments::catalog());
    let columns = |line: &str| line.replace("\\|", "").matches('|').count();
    let mut lines = table.lines();
    let header = columns(lines.next().expect("a header"));
    let rows: Vec<&str> = lines.skip(1).collect();
    assert!(!rows.is_empty(), "{table}");
    for row in &rows {
        assert_eq!(columns(row), header, "a row has extra columns: {row}");
        assert!(
            row.starts_with(r"| a\|b.json | Evil \| GPU \*v2\* &lt;b>x&lt;/b> \`y\` | 8 |"),
            "{row}"
        );
    }
}

/// The HTML report explains every verdict status, `inconclusive` too, and styles each one.
#[test]
fn html_legend_and_style_cover_every_status() {
    let _cpu = util::gpu_shared();
    let docs = [("sg8.json".to_owned(), sg8_reference())];
    let html = divlab::report::html_report(&docs, &divlab::experiments::catalog());
    let footer = &html[html.find("<footer>").expect("a footer")..];
    for status in [
        "held",
        "violated",
        "not_guaranteed",
        "consistent",
        "inconsistent",
        "inconclusive",
    ] {
        assert!(
            footer.contains(&format!("<b>{status}</b>")),
            "the legend lacks {status}"
        );
        assert!(
            html.contains(&format!(".v-{status}")),
            "the style sheet lacks .v-{status}"
        );
    }
}
