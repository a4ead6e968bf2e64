//! The static uniformity analysis: the corpus in `tests/uniformity/` against its manifest,
//! naga's own verdicts on the same expectations, every shipped kernel, fuzzer programs, and the
//! `divlab uniformity` command.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use divlab::uniformity::{
    Analysis, Options, Severity, Verdict, analyze_source, analyze_source_with,
};
use serde_json::Value;

use crate::util;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One manifest entry.
struct Case {
    file: String,
    text: String,
    options: Options,
    /// (rule, severity, line)
    diagnostics: Vec<(String, String, u32)>,
    lines: BTreeMap<u32, String>,
    subgroup_lines: BTreeMap<u32, String>,
    values: BTreeMap<String, String>,
    subgroup_values: BTreeMap<String, String>,
}

fn string_map<K: Ord>(v: &Value, key: &str, parse: impl Fn(&str) -> K) -> BTreeMap<K, String> {
    v.get(key)
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (parse(k), v.as_str().expect("a verdict string").to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

fn corpus() -> Vec<Case> {
    let dir = root().join("tests/uniformity");
    let text = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest.json");
    let doc: Value = serde_json::from_str(&text).expect("manifest.json is JSON");
    let cases = doc["cases"].as_array().expect("cases");
    cases
        .iter()
        .map(|c| {
            let file = c["file"].as_str().expect("file").to_owned();
            let text = std::fs::read_to_string(dir.join(&file))
                .unwrap_or_else(|e| panic!("manifest names {file}, which cannot be read: {e}"));
            let mut options = Options::default();
            if let Some(ext) = c.pointer("/options/subgroup_uniformity_extension") {
                options.subgroup_uniformity_extension = ext.as_bool().expect("a bool");
            }
            let diagnostics = c["diagnostics"]
                .as_array()
                .expect("diagnostics")
                .iter()
                .map(|d| {
                    (
                        d["rule"].as_str().expect("rule").to_owned(),
                        d["severity"].as_str().expect("severity").to_owned(),
                        d["line"].as_u64().expect("line") as u32,
                    )
                })
                .collect();
            let line = |k: &str| k.parse::<u32>().expect("a line number");
            Case {
                file,
                text,
                options,
                diagnostics,
                lines: string_map(c, "lines", line),
                subgroup_lines: string_map(c, "subgroup_lines", line),
                values: string_map(c, "values", str::to_owned),
                subgroup_values: string_map(c, "subgroup_values", str::to_owned),
            }
        })
        .collect()
}

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Uniform => "uniform",
        Verdict::NonUniform => "non-uniform",
        Verdict::NotExecuted => "not-executed",
    }
}

fn json_name<T: serde::Serialize>(v: T) -> String {
    serde_json::to_value(v)
        .expect("serializes")
        .as_str()
        .expect("a string")
        .to_owned()
}

/// Every difference between an analysis and a case's expectations.
fn mismatches(case: &Case, a: &Analysis) -> Vec<String> {
    let mut out = Vec::new();
    let mut got: Vec<(String, String, u32)> = a
        .diagnostics
        .iter()
        .map(|d| (json_name(d.rule), json_name(d.severity), d.line))
        .collect();
    let mut want = case.diagnostics.clone();
    got.sort();
    want.sort();
    if got != want {
        out.push(format!("diagnostics: expected {want:?}, got {got:?}"));
    }
    for (scope, expected, subgroup) in [
        ("line", &case.lines, false),
        ("subgroup line", &case.subgroup_lines, true),
    ] {
        for (line, want) in expected {
            let got = a
                .line(*line)
                .map(|l| verdict_name(if subgroup { l.subgroup } else { l.verdict }));
            if got != Some(want.as_str()) {
                out.push(format!("{scope} {line}: expected {want}, got {got:?}"));
            }
        }
    }
    for (scope, expected, subgroup) in [
        ("value", &case.values, false),
        ("subgroup value", &case.subgroup_values, true),
    ] {
        for (name, want) in expected {
            let found: Vec<_> = a.values.iter().filter(|v| &v.name == name).collect();
            let got = match found.as_slice() {
                [v] => verdict_name(if subgroup { v.subgroup } else { v.verdict }),
                _ => "missing or ambiguous",
            };
            if got != want {
                out.push(format!("{scope} `{name}`: expected {want}, got {got}"));
            }
        }
    }
    out
}

/// Every file of the corpus matches its manifest entry: diagnostics exactly, and the expected
/// line and value verdicts.
#[test]
fn corpus_matches_manifest() {
    // Not a GPU test, but CPU-heavy: kept off the timing tests' cores.
    let _cpu = crate::util::gpu_shared();
    let cases = corpus();
    assert!(cases.len() >= 60, "the corpus has {} files", cases.len());
    // Every case names the spec rule it follows: by its prefix, or by its own `spec`.
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/uniformity/manifest.json")).unwrap(),
    )
    .unwrap();
    let rules = manifest["rules"].as_object().expect("rules by prefix");
    for c in manifest["cases"].as_array().unwrap() {
        let file = c["file"].as_str().unwrap();
        assert!(
            c.get("spec").is_some() || rules.keys().any(|prefix| file.starts_with(prefix.as_str())),
            "{file} names no spec rule"
        );
    }
    let on_disk: Vec<String> = std::fs::read_dir(root().join("tests/uniformity"))
        .expect("tests/uniformity")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wgsl"))
        .collect();
    for name in &on_disk {
        assert!(
            cases.iter().any(|c| &c.file == name),
            "tests/uniformity/{name} has no manifest entry"
        );
    }
    let mut failures = Vec::new();
    for case in &cases {
        let header = case.text.lines().next().unwrap_or_default();
        assert!(
            header.starts_with("// "),
            "{} must start with a one-line comment saying what it tests",
            case.file
        );
        match analyze_source_with(&case.file, &case.text, &case.options) {
            Ok(a) => {
                let m = mismatches(case, &a);
                if !m.is_empty() {
                    failures.push(format!(
                        "{}:\n  {}\n{}",
                        case.file,
                        m.join("\n  "),
                        a.render()
                    ));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", case.file)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus files differ from the manifest:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Counts of expected verdicts, and how many of them naga's own info and divlab get wrong.
#[derive(Default)]
struct Tally {
    lines: usize,
    lines_naga_wrong: usize,
    lines_divlab_wrong: usize,
    values: usize,
    values_naga_wrong: usize,
    values_divlab_wrong: usize,
    errors: usize,
    errors_divlab_wrong: usize,
}

/// The README's comparison: over the corpus's expected line verdicts (workgroup scope),
/// `let` values and error diagnostics, how many naga's conservative uniformity info gets wrong,
/// and how many divlab does (none). Run with `--nocapture` to see the table.
#[test]
fn naga_comparison_table() {
    // Not a GPU test, but CPU-heavy: kept off the timing tests' cores.
    let _cpu = crate::util::gpu_shared();
    let mut t = Tally::default();
    for case in corpus() {
        let a = analyze_source_with(&case.file, &case.text, &case.options).expect("analyzes");
        // naga 30 cannot validate a pointer parameter into `workgroup` or `storage`
        // (`call_pointer_uniform_load*`), so it has no verdicts to compare there.
        let naga = match divlab::uniformity::naga_view::naga_verdicts(&case.file, &case.text) {
            Ok(naga) => naga,
            Err(_) if case.text.contains("ptr<workgroup") || case.text.contains("ptr<storage") => {
                continue;
            }
            Err(e) => panic!("naga cannot read {}: {e}", case.file),
        };
        for (line, want) in &case.lines {
            if want == "not-executed" {
                continue;
            }
            t.lines += 1;
            let naga_got = naga.lines.get(line).map(|v| verdict_name(*v));
            t.lines_naga_wrong += usize::from(naga_got != Some(want.as_str()));
            let got = a.line(*line).map(|l| verdict_name(l.verdict));
            t.lines_divlab_wrong += usize::from(got != Some(want.as_str()));
        }
        for (name, want) in &case.values {
            t.values += 1;
            let naga_got = naga
                .values
                .iter()
                .find(|(_, n, _)| n == name)
                .map(|(_, _, v)| verdict_name(*v));
            t.values_naga_wrong += usize::from(naga_got != Some(want.as_str()));
            let got = a
                .values
                .iter()
                .find(|v| &v.name == name)
                .map(|v| verdict_name(v.verdict));
            t.values_divlab_wrong += usize::from(got != Some(want.as_str()));
        }
        let expected_errors = case.diagnostics.iter().filter(|d| d.1 == "error").count();
        let found_errors = a
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        t.errors += expected_errors;
        t.errors_divlab_wrong += expected_errors.abs_diff(found_errors);
    }
    let table = format!(
        "| expected verdicts in the corpus | count | naga 30's info wrong | divlab wrong |\n\
         |---|---:|---:|---:|\n\
         | line: control flow uniform / non-uniform | {} | {} | {} |\n\
         | `let` value uniform / non-uniform | {} | {} | {} |\n\
         | error diagnostics (naga reports none) | {} | {} | {} |\n",
        t.lines,
        t.lines_naga_wrong,
        t.lines_divlab_wrong,
        t.values,
        t.values_naga_wrong,
        t.values_divlab_wrong,
        t.errors,
        t.errors,
        t.errors_divlab_wrong,
    );
    println!("{table}");
    assert!(
        t.lines >= 100 && t.values >= 50,
        "too few expectations:\n{table}"
    );
    assert_eq!(
        (
            t.lines_divlab_wrong,
            t.values_divlab_wrong,
            t.errors_divlab_wrong
        ),
        (0, 0, 0),
        "divlab disagrees with the manifest:\n{table}"
    );
    assert!(
        t.lines_naga_wrong > 0 && t.values_naga_wrong > 0,
        "naga's info agreed everywhere; the comparison measures nothing:\n{table}"
    );
}

/// Lines with error diagnostics that shipped kernels are allowed to have: none. Kernels that
/// run subgroup builtins in divergent control flow on purpose say so with
/// `diagnostic(off, subgroup_uniformity)`. (file, line, rule)
const KNOWN_SHIPPED: &[(&str, u32, &str)] = &[];

fn shipped_kernels() -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("shaders"))
        .expect("shaders/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    files.sort();
    let mut out: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let name = format!("shaders/{}", p.file_name().unwrap().to_string_lossy());
            (name, std::fs::read_to_string(p).expect("readable"))
        })
        .collect();
    use divlab::experiments::divergence::Form;
    use divlab::experiments::divergence::kernels::Selection;
    for form in [
        Form::IfChain,
        Form::Switch,
        Form::Loop,
        Form::NestedIf,
        Form::Predicated,
    ] {
        out.push((
            format!("divergence.{}", form.name()),
            form.source(8, Selection::Subgroup),
        ));
        out.push((
            format!("divergence.{}.no_subgroups", form.name()),
            form.source(8, Selection::Block),
        ));
    }
    out
}

/// Some line verdicts, in line order on lines of the text, each with a reason exactly where it
/// is non-uniform.
fn assert_line_verdicts(name: &str, text: &str, a: &Analysis) {
    assert!(!a.lines.is_empty(), "{name}: no line verdicts");
    let last_line = text.lines().count() as u32;
    for pair in a.lines.windows(2) {
        assert!(pair[0].line < pair[1].line, "{name}: {pair:?} out of order");
    }
    for l in &a.lines {
        assert!((1..=last_line).contains(&l.line), "{name}: {l:?}");
        assert_eq!(
            l.verdict == Verdict::NonUniform,
            l.reason.is_some(),
            "{name}: {l:?}"
        );
        assert_eq!(
            l.subgroup == Verdict::NonUniform,
            l.subgroup_reason.is_some(),
            "{name}: {l:?}"
        );
    }
}

/// Every shipped kernel (and each generated divergence form) analyzes, and its error
/// diagnostics are exactly the known ones.
#[test]
fn shipped_kernels_have_no_unintended_errors() {
    // Not a GPU test, but CPU-heavy: kept off the timing tests' cores.
    let _cpu = crate::util::gpu_shared();
    let mut found = Vec::new();
    let mut report = String::new();
    for (name, text) in shipped_kernels() {
        let a = analyze_source(&name, &text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_line_verdicts(&name, &text, &a);
        for d in a
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
        {
            found.push((name.clone(), d.line, json_name(d.rule)));
        }
        if a.has_errors() {
            report.push_str(&a.render());
        }
    }
    found.sort();
    found.dedup();
    let known: Vec<(String, u32, String)> = KNOWN_SHIPPED
        .iter()
        .map(|(f, l, r)| ((*f).to_owned(), *l, (*r).to_owned()))
        .collect();
    assert_eq!(
        found, known,
        "shipped kernels' uniformity errors changed:\n{report}"
    );
}

/// Fuzzer programs (which turn `subgroup_uniformity` off) analyze without errors or panics.
#[test]
fn fuzz_programs_analyze_cleanly() {
    // Not a GPU test, but CPU-heavy: kept off the timing tests' cores.
    let _cpu = crate::util::gpu_shared();
    use divlab::fuzz::{Size, Style, program_for, wgsl::emit};
    for seed in 0..40 {
        for style in Style::ALL {
            let text = emit(&program_for(seed, Size::Medium, style));
            let name = format!("fuzz seed {seed} {style:?}");
            let a = analyze_source(&name, &text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!a.has_errors(), "{name}:\n{}\n{text}", a.render());
        }
    }
}

/// `divlab uniformity`: rustc-style output and exit 1 on an error, exit 0 when clean, the JSON
/// document with per-line verdicts, exit 2 for an unreadable file. The other formats, several
/// inputs and stdin are in `lint.rs`.
#[test]
fn cli_uniformity() {
    // Not a GPU test, but CPU-heavy: kept off the timing tests' cores.
    let _cpu = crate::util::gpu_shared();
    let dir = util::temp_dir();
    let corpus = root().join("tests/uniformity");
    let mut cmd = util::divlab(dir.path());
    cmd.arg("uniformity").arg(corpus.join("cf_if_return.wgsl"));
    let run = util::run(cmd);
    run.assert_code(1);
    for needle in [
        "error[uniformity]: `workgroupBarrier()` requires uniform control flow",
        "cf_if_return.wgsl:7:5",
        "non-uniform because the `if` condition `lid >= 32u` at 4:8 depends on",
        "local_invocation_index",
    ] {
        assert!(run.stdout.contains(needle), "no `{needle}` in\n{run}");
    }

    let mut cmd = util::divlab(dir.path());
    cmd.arg("uniformity").arg(corpus.join("cf_if_join.wgsl"));
    let run = util::run(cmd);
    run.assert_code(0);
    assert!(run.stdout.contains("0 errors"), "{run}");

    let mut cmd = util::divlab(dir.path());
    cmd.args(["uniformity", "--format", "json"])
        .arg(corpus.join("cf_if_return.wgsl"));
    let run = util::run(cmd);
    run.assert_code(1);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\n{run}"));
    assert_eq!(doc["schema_version"], 2, "{run}");
    let doc = &doc["files"][0];
    assert_eq!(doc["status"], "analyzed", "{run}");
    let lines = doc["lines"].as_array().expect("lines");
    let verdict_of = |n: u64| {
        lines
            .iter()
            .find(|l| l["line"] == n)
            .map(|l| l["verdict"].as_str().unwrap_or_default().to_owned())
    };
    assert_eq!(verdict_of(4).as_deref(), Some("uniform"), "{run}");
    assert_eq!(verdict_of(7).as_deref(), Some("non-uniform"), "{run}");
    assert_eq!(doc["diagnostics"][0]["rule"], "uniformity", "{run}");

    let mut cmd = util::divlab(dir.path());
    cmd.args(["uniformity", "no-such-file.wgsl"]);
    util::run(cmd).assert_code(2);
}
