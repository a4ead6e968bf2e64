//! Results that travel across devices (#37): the long export of any number of result files, the
//! typed profile CSV, the noise-tolerant CI gate (`compare --fail-on`), and the JSON Schemas of
//! the documents, checked against the committed files and, by Python's `jsonschema`, against
//! every reference document and every kind of document the tests write.
//!
//! One fresh quick run of the experiments that carry guarantees is shared by the tests that need
//! one ([`guarantee_run`]): the convergence scenarios, the subgroup-operation catalog, the
//! scheduling probes and the subgroup probe, each with `held`/`violated` verdicts decided by
//! exact values. The divergence study is left out: its one guarantee (every lane computes its
//! own path's result) costs minutes of timed sweeps on a 2-core machine.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use divlab::bench::{BenchConfig, run_bench};
use divlab::experiments::{Lab, RunConfig};
use divlab::report::{ResultDocument, long_header, write_json};
use divlab::schemas::Kind;
use serde_json::Value;

use crate::util::{self, divlab, path_in, run, temp_dir};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The reference result files (lavapipe's three, the H100's and the H200's), sorted as a shell
/// sorts `assets/reference/*.json`.
fn references() -> Vec<PathBuf> {
    let files = crate::compare::all_references();
    assert_eq!(files.len(), 5, "the five reference files: {files:?}");
    files
}

/// The ids of the experiments whose guarantees the gate test checks.
fn guarantee_ids() -> Vec<&'static str> {
    divlab::bench::selected_ids(None)
        .into_iter()
        .filter(|id| {
            ["convergence.", "subgroup_ops.", "scheduling.", "subgroup."]
                .iter()
                .any(|p| id.starts_with(p))
        })
        .collect()
}

/// One fresh quick run of [`guarantee_ids`] on the default adapter, shared by the tests.
fn guarantee_run() -> &'static ResultDocument {
    static DOC: OnceLock<ResultDocument> = OnceLock::new();
    DOC.get_or_init(|| {
        let lab = Lab::new(util::gpu());
        let ids = guarantee_ids();
        let config = BenchConfig {
            run: RunConfig {
                quick: true,
                reps: None,
                fuzz_seeds: None,
            },
            only: None,
            ids: Some(ids.iter().map(|s| (*s).to_owned()).collect()),
        };
        let doc = run_bench(&lab, &config, &|_| {});
        let ran: Vec<&str> = doc.experiments.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ran, ids, "the run's experiments");
        doc
    })
}

/// Runs Python `script` with `args` in the tests' environment (target/pyenv); its stdout.
fn python(script: &str, args: &[&Path]) -> String {
    let out = Command::new(crate::tint::python())
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert!(
        out.status.success(),
        "python failed:\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The long export of `files`, by `divlab compare FILE... --long`, as text.
fn long_export(dir: &tempfile::TempDir, files: &[PathBuf], name: &str) -> String {
    let mut cmd = divlab(dir.path());
    cmd.arg("compare").args(files).args(["--long", name]);
    run(cmd).assert_code(0);
    std::fs::read_to_string(path_in(dir, name)).expect("the long export was written")
}

/// Checks a CSV with Python's csv module against the column types documented in the section of
/// a page (argv: page, CSV, heading): the header is the documented columns in order, every row names its adapter and
/// backend, and every cell of a typed column parses as its type (an integer as `int`, written
/// as Python would write it back, so `8.0` fails; a number as `float`, with a decimal point or
/// an exponent, so that a reader infers a float column). Prints `adapter|backend|created` per row.
const CHECK_TYPES: &str = r#"
import csv, datetime, re, sys
docs = open(sys.argv[1], encoding="utf-8").read()
section = docs.split(sys.argv[3])[1].split("\n## ")[0]
types = re.findall(r"^\| `([a-z_]+)` \| (integer|number|timestamp|string) \|", section, re.M)
assert types, "no typed column table in docs/results.md"
rows = list(csv.DictReader(open(sys.argv[2], newline="", encoding="utf-8")))
with open(sys.argv[2], newline="", encoding="utf-8") as f:
    header = next(csv.reader(f))
assert header == [name for name, _ in types], (header, types)
def parses(kind, cell):
    if kind == "integer":
        return str(int(cell)) == cell
    if kind == "number":
        float(cell)
        return re.search(r"[.eE]|nan|inf", cell, re.I) is not None
    if kind == "timestamp":
        return datetime.datetime.fromisoformat(cell.replace("Z", "+00:00")).tzinfo is not None
    return True
bad = []
for i, row in enumerate(rows):
    for name, kind in types:
        cell = row[name]
        try:
            ok = cell == "" or parses(kind, cell)
        except ValueError:
            ok = False
        if not ok:
            bad.append(f"row {i + 2} {name} ({kind}): {cell!r}")
    for name in ("adapter", "backend", "created"):
        if not row[name]:
            bad.append(f"row {i + 2} has no {name}")
    print(row["adapter"] + "|" + row["backend"] + "|" + row["created"])
if bad:
    print("\n".join(bad[:20]), file=sys.stderr)
    sys.exit(1)
"#;

/// The heading of the long export's section in docs/results.md.
const LONG_HEADING: &str = "## CSV: the long export";

/// The acceptance test of the long export: the references' exports, each made alone and
/// concatenated, equal the export of all of them at once; every row names its device and backend;
/// lavapipe's Vulkan and GL runs are told apart; integer columns hold integers.
#[test]
fn long_exports_of_the_references_concatenate_with_typed_columns() {
    if crate::peers::python().is_none() {
        return;
    }
    let _cpu = util::gpu_shared();
    let dir = temp_dir();
    let files = references();
    let header = long_header().join(",");
    let mut concatenated = format!("{header}\n");
    for (i, file) in files.iter().enumerate() {
        let one = long_export(&dir, std::slice::from_ref(file), &format!("{i}.csv"));
        let body = one
            .strip_prefix(&format!("{header}\n"))
            .unwrap_or_else(|| panic!("{}: no header row", file.display()));
        assert!(body.lines().count() > 50, "{}: {body}", file.display());
        concatenated.push_str(body);
    }
    assert_eq!(long_export(&dir, &files, "all.csv"), concatenated);
    let all = path_in(&dir, "all.csv");
    let identities = python(
        CHECK_TYPES,
        &[
            &root().join("docs/results.md"),
            &all,
            Path::new(LONG_HEADING),
        ],
    );
    // One (adapter, backend, created) per file, and lavapipe's two backends apart.
    let mut runs: Vec<&str> = identities.lines().collect();
    runs.dedup();
    assert_eq!(runs.len(), files.len(), "{runs:?}");
    let lavapipe: Vec<&str> = runs
        .iter()
        .filter(|r| r.starts_with("llvmpipe"))
        .map(|r| r.split('|').nth(1).expect("a backend"))
        .collect();
    for backend in ["vulkan", "gl"] {
        assert!(lavapipe.contains(&backend), "{runs:?}");
    }
    // The check can fail: a float in an integer column is caught.
    let broken = path_in(&dir, "broken.csv");
    let text = std::fs::read_to_string(&all).unwrap();
    let line = text.lines().nth(1).unwrap();
    let mut cells: Vec<String> = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(line.as_bytes())
        .records()
        .next()
        .unwrap()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let vendor = long_header().iter().position(|c| *c == "vendor").unwrap();
    cells[vendor].push_str(".0");
    let mut w = csv::Writer::from_path(&broken).unwrap();
    w.write_record(long_header()).unwrap();
    w.write_record(&cells).unwrap();
    w.flush().unwrap();
    let out = Command::new(crate::tint::python())
        .args(["-c", CHECK_TYPES])
        .arg(root().join("docs/results.md"))
        .arg(&broken)
        .arg(LONG_HEADING)
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "`vendor` 65541.0 passed as an integer"
    );
}

/// `compare --fail-on guarantee` holds a fresh quick run (made while the other tests load the
/// machine) against the lavapipe reference: no guarantee changed, whatever the timing verdicts
/// did. A copy of the reference with one guarantee flipped to `violated` fails it, naming it.
#[test]
fn the_guarantee_gate_passes_a_fresh_run_and_fails_a_flipped_guarantee() {
    let _gpu = util::gpu_shared();
    let reference = root().join("assets/reference/lavapipe-sg8.json");
    let dir = temp_dir();
    let fresh = path_in(&dir, "fresh.json");
    write_json(&fresh, guarantee_run()).unwrap_or_else(|e| panic!("{e}"));
    let gate = |baseline: &Path, level: &str| {
        let mut cmd = divlab(dir.path());
        cmd.args(["compare", "--baseline"])
            .arg(baseline)
            .arg(&fresh)
            .args(["--fail-on", level, "-o", "table.txt"]);
        run(cmd)
    };
    gate(&reference, "guarantee").assert_code(0);

    // The first held guarantee of an experiment the run has, flipped in a copy.
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&reference).unwrap()).unwrap();
    let (id, key) = flip_first(&mut value, "held", "violated", |id| {
        guarantee_ids().contains(&id)
    });
    let flipped = path_in(&dir, "flipped.json");
    std::fs::write(&flipped, value.to_string()).unwrap();
    let out = gate(&flipped, "guarantee");
    out.assert_code(1);
    assert!(
        out.stderr.contains(&format!(
            "{id}.{key}: violated → held (fresh.json against flipped.json)"
        )),
        "the change is not named\n{out}"
    );
}

/// Sets the first verdict whose status is `from` (in an experiment `keep` accepts) to `to`;
/// returns its experiment id and key.
fn flip_first(
    doc: &mut Value,
    from: &str,
    to: &str,
    keep: impl Fn(&str) -> bool,
) -> (String, String) {
    for e in doc["experiments"].as_array_mut().unwrap() {
        let id = e["id"].as_str().unwrap().to_owned();
        if !keep(&id) {
            continue;
        }
        for v in e["verdicts"].as_array_mut().unwrap() {
            if v["status"] == from {
                v["status"] = Value::from(to);
                return (id, v["key"].as_str().unwrap().to_owned());
            }
        }
    }
    panic!("no `{from}` verdict to flip");
}

/// The levels on edited copies of one reference file (no GPU): a model's claim that flips
/// fails `model` and `any` but not `guarantee`; a move to `inconclusive` fails no level; a key
/// figure fails only past `--threshold`, and not where its 95% interval still overlaps the
/// reference's or where it is the measurement's spread (a CV); `--fail-on-difference` is
/// `--fail-on any`.
#[test]
fn gate_levels_and_threshold_on_edited_copies() {
    let _cpu = util::gpu_shared();
    let dir = temp_dir();
    let reference = root().join("assets/reference/lavapipe-sg8.json");
    let base: Value = serde_json::from_str(&std::fs::read_to_string(&reference).unwrap()).unwrap();
    let write = |name: &str, doc: &Value| {
        let path = path_in(&dir, name);
        std::fs::write(&path, doc.to_string()).unwrap();
        path
    };
    let all = |_: &str| true;
    let mut model = base.clone();
    flip_first(&mut model, "consistent", "inconsistent", all);
    let mut inconclusive = base.clone();
    flip_first(&mut inconclusive, "consistent", "inconclusive", all);
    // The switch form's metrics, some scaled.
    let scaled = |scales: &[(&str, f64)]| {
        let mut doc = base.clone();
        let switch = (doc["experiments"].as_array_mut().unwrap().iter_mut())
            .find(|e| e["id"] == "divergence.switch")
            .expect("divergence.switch");
        for (key, by) in scales {
            let f = &mut switch["metrics"][*key];
            *f = Value::from(f.as_f64().unwrap_or_else(|| panic!("no {key}")) * by);
        }
        doc
    };
    // F(SG) 20% higher, its interval with it.
    let figure = scaled(&[
        ("serialization_at_sg", 1.2),
        ("serialization_at_sg_ci_low", 1.2),
        ("serialization_at_sg_ci_high", 1.2),
    ]);
    // F(SG) 20% higher, its interval stretched down over the reference's value: noise.
    let within = scaled(&[
        ("serialization_at_sg", 1.2),
        ("serialization_at_sg_ci_low", 0.5),
        ("serialization_at_sg_ci_high", 1.2),
    ]);
    // The measurement's spread tripled: the machine, not the device.
    let noisier = scaled(&[("cv_median", 3.0)]);
    let cases: [(&str, &Value, &[&str], i32); 12] = [
        ("model.json", &model, &["--fail-on", "guarantee"], 0),
        ("model.json", &model, &["--fail-on", "model"], 1),
        ("model.json", &model, &["--fail-on", "any"], 1),
        ("model.json", &model, &["--fail-on-difference"], 1),
        ("inconclusive.json", &inconclusive, &["--fail-on", "any"], 0),
        (
            "inconclusive.json",
            &inconclusive,
            &["--fail-on-difference"],
            0,
        ),
        ("figure.json", &figure, &["--fail-on", "any"], 0),
        (
            "figure.json",
            &figure,
            &["--fail-on", "guarantee", "--threshold", "10%"],
            1,
        ),
        (
            "figure.json",
            &figure,
            &["--fail-on", "guarantee", "--threshold", "30%"],
            0,
        ),
        ("figure.json", &figure, &["--threshold", "10%"], 2),
        (
            "within.json",
            &within,
            &["--fail-on", "guarantee", "--threshold", "10%"],
            0,
        ),
        (
            "noisier.json",
            &noisier,
            &["--fail-on", "guarantee", "--threshold", "10%"],
            0,
        ),
    ];
    for (name, doc, flags, code) in cases {
        let edited = write(name, doc);
        let mut cmd = divlab(dir.path());
        cmd.args(["compare", "--baseline"])
            .arg(&reference)
            .arg(&edited)
            .args(flags)
            .args(["-o", "table.txt"]);
        let out = run(cmd);
        out.assert_code(code);
        let named = out
            .stderr
            .contains("divergence.switch.serialization_at_sg: +20.0%");
        if code == 1 && name == "figure.json" {
            assert!(named && !out.stderr.contains("noise"), "{out}");
        }
        // Let pass as noise, but named.
        if name == "within.json" {
            assert!(named && out.stderr.contains("noise, not counted"), "{out}");
        }
    }
}

/// The threshold on real runs: the H100's against the H200's (one architecture and driver,
/// other memory) passes at 10%, its figures within noise or their intervals; lavapipe at
/// subgroup 4 against subgroup 8 fails on F(SG), which halves with the subgroup.
#[test]
fn the_threshold_passes_two_gpus_of_one_kind_and_fails_another_subgroup_size() {
    let dir = temp_dir();
    let reference = |name: &str| root().join("assets/reference").join(name);
    let gate = |baseline: &str, other: &str| {
        let mut cmd = divlab(dir.path());
        cmd.args(["compare", "--baseline"])
            .arg(reference(baseline))
            .arg(reference(other))
            .args([
                "--fail-on",
                "model",
                "--threshold",
                "10%",
                "-o",
                "table.txt",
            ]);
        run(cmd)
    };
    gate("nvidia-h200.json", "nvidia-h100.json").assert_code(0);
    let out = gate("lavapipe-sg8.json", "lavapipe-sg4.json");
    out.assert_code(1);
    assert!(
        out.stderr
            .contains("divergence.switch.serialization_at_sg: -50.0%"),
        "{out}"
    );
    assert!(!out.stderr.contains("cv_median"), "{out}");
}

/// Each committed schema in `schemas/` is what this build generates from its types.
/// `DIVLAB_UPDATE_SCHEMAS=1` writes them again instead.
#[test]
fn schema_files_are_generated_from_the_types() {
    let update = std::env::var_os("DIVLAB_UPDATE_SCHEMAS").is_some();
    for kind in Kind::ALL {
        let path = root().join("schemas").join(kind.file_name());
        let generated = kind.file_text();
        if update {
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} is not what this build generates: run \
             `DIVLAB_UPDATE_SCHEMAS=1 cargo test --test main schema_files` (or `divlab schema \
             {kind:?}`) and commit the result",
            path.display()
        );
    }
    // `divlab schema KIND` prints the same text.
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.args(["schema", "profile"]);
    let out = run(cmd);
    out.assert_code(0);
    assert_eq!(out.stdout, Kind::Profile.file_text());
}

/// Validates each `(schema, document)` pair with `jsonschema`'s draft 2020-12 validator, and
/// prints the failures.
const VALIDATE: &str = r#"
import json, sys, jsonschema
pairs = sys.argv[1:]
failed = 0
for schema_path, doc_path in zip(pairs[0::2], pairs[1::2]):
    schema = json.load(open(schema_path, encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = json.load(open(doc_path, encoding="utf-8"))
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
    for e in errors[:5]:
        print(f"{doc_path}: {list(e.absolute_path)}: {e.message}"[:400])
    failed += bool(errors)
print(f"{failed} invalid")
"#;

/// Result documents as the tests write them: the shared runs, and one whose experiments ended
/// in an error (with its kind) and cancelled.
fn written_results(dir: &tempfile::TempDir) -> Vec<PathBuf> {
    let mut failed = util::bench_doc().clone();
    let mut error = failed.experiments[0].clone();
    error.status = divlab::report::ExperimentStatus::Error;
    error.status_detail = "the GPU did not finish within 60 s".to_owned();
    error.error_kind = Some(divlab::report::ErrorKind::Timeout);
    (error.metrics, error.verdicts, error.series, error.lanes) = Default::default();
    let mut cancelled = error.clone();
    cancelled.status = divlab::report::ExperimentStatus::Cancelled;
    cancelled.error_kind = Some(divlab::report::ErrorKind::Cancelled);
    failed.experiments.extend([error, cancelled]);
    [
        ("run.json", guarantee_run()),
        ("size.json", util::bench_doc()),
        ("failed.json", &failed),
    ]
    .into_iter()
    .map(|(name, doc)| {
        let path = path_in(dir, name);
        write_json(&path, doc).unwrap_or_else(|e| panic!("{e}"));
        path
    })
    .collect()
}

/// Profiles through the CLI: one with its lanes captured and its branches' costs measured
/// (whose CSV's columns hold their documented types), and one on wgpu's GL backend, without subgroups or source (its figures
/// null).
fn written_profiles(dir: &tempfile::TempDir) -> Vec<PathBuf> {
    let kernel = "tests/kernels/profile/counted_rows.wgsl";
    let inputs = ["--dispatch", "4", "--len", "rows=8", "--reps", "1"];
    let mut cmd = divlab(root());
    cmd.args(["profile", kernel])
        .args(inputs)
        .args(["--lanes", "19", "--cost", "--json"])
        .arg(path_in(dir, "profile.json"))
        .arg("--csv")
        .arg(path_in(dir, "profile.csv"));
    run(cmd).assert_code(0);
    let profile_md = root().join("docs/profile.md");
    let csv = path_in(dir, "profile.csv");
    let rows = python(CHECK_TYPES, &[&profile_md, &csv, Path::new("## The CSV")]);
    assert!(rows.lines().count() > 5, "{rows}");
    let mut cmd = divlab(root());
    cmd.args(["--backend", "gl", "profile", kernel])
        .args(inputs)
        .args(["--no-source", "--json"])
        .arg(path_in(dir, "profile-gl.json"));
    run(cmd).assert_code(0);
    vec![
        path_in(dir, "profile.json"),
        path_in(dir, "profile-gl.json"),
    ]
}

/// A uniformity report over the corpus, a file that is not WGSL and one that is missing: an
/// `analyzed`, an `invalid` and an `unreadable` input.
fn written_uniformity_report(dir: &tempfile::TempDir) -> PathBuf {
    std::fs::write(path_in(dir, "broken.wgsl"), "fn (").unwrap();
    let path = path_in(dir, "uniformity.json");
    let mut cmd = divlab(root());
    cmd.args(["uniformity", "tests/uniformity/"])
        .arg(path_in(dir, "broken.wgsl"))
        .arg(path_in(dir, "missing.wgsl"))
        .arg("--json")
        .arg(&path);
    let out = run(cmd);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{e}\n{out}"));
    let statuses: Vec<&str> = (report["files"].as_array().unwrap().iter())
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    for status in ["analyzed", "invalid", "unreadable"] {
        assert!(statuses.contains(&status), "no `{status}` input\n{out}");
    }
    path
}

/// Every reference document, every fixture and every kind of document the tests write (result
/// documents with every experiment status, profiles with and without subgroups, a uniformity
/// report with every input status) validates against its committed schema, and each written one
/// names the schema's `$id`; a damaged document does not validate.
#[test]
fn every_document_validates_against_its_schema() {
    if crate::peers::python().is_none() {
        return;
    }
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let schema = |kind: Kind| root().join("schemas").join(kind.file_name());
    let fixtures = ["schema1-lavapipe-sg8.json", "schema2-lavapipe-sg8.json"];
    // Written before `$schema` was recorded.
    let old: Vec<PathBuf> = (references().into_iter())
        .chain(fixtures.map(|f| root().join("tests/fixtures").join(f)))
        .collect();
    let mut written: Vec<(Kind, PathBuf)> = Vec::new();
    written.extend(written_results(&dir).into_iter().map(|p| (Kind::Result, p)));
    written.extend(
        written_profiles(&dir)
            .into_iter()
            .map(|p| (Kind::Profile, p)),
    );
    written.push((Kind::Uniformity, written_uniformity_report(&dir)));
    for (kind, path) in &written {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(doc["$schema"], kind.id().as_str(), "{}", path.display());
    }
    // A damaged document, which must fail: the validator can say no.
    let mut damaged: Value = serde_json::to_value(util::bench_doc()).unwrap();
    damaged["experiments"][0]["verdicts"][0]["status"] = Value::from("fine");
    let damaged_path = path_in(&dir, "damaged.json");
    std::fs::write(&damaged_path, damaged.to_string()).unwrap();

    let mut pairs: Vec<(PathBuf, PathBuf)> = (old.into_iter().chain([damaged_path]))
        .map(|p| (schema(Kind::Result), p))
        .collect();
    pairs.extend(written.into_iter().map(|(k, p)| (schema(k), p)));
    let args: Vec<&Path> = pairs
        .iter()
        .flat_map(|(s, d)| [s.as_path(), d.as_path()])
        .collect();
    let out = python(VALIDATE, &args);
    assert!(
        out.ends_with("1 invalid\n") && out.contains("damaged.json"),
        "only the damaged document may fail:\n{out}"
    );
}
