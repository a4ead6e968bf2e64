//! Profile documents that travel: schema 3 (the request, the source, the versions), `--import`
//! without a GPU, `--csv`, the kernel-level branch efficiency, efficiency against the subgroup
//! width, and the time budget of the timed runs. Real runs on the default adapter (lavapipe),
//! through the library and through the `divlab` binary. Expected figures are derived here by hand
//! from the kernels in tests/kernels/profile/, for any subgroup size of at least 4 that divides
//! 64; the size itself is read from the profile and checked against the device.

use std::time::{Duration, Instant, SystemTime};

use divlab::profile::report::{self, CSV_COLUMNS, Profile};
use divlab::profile::run::Request;
use serde_json::{Value, json};

use crate::util::{self, Run, branch, divlab, line_of, path_in, run, temp_dir};

const THREE_BRANCHES: &str = include_str!("../kernels/profile/three_branches.wgsl");
const REQUEST_ECHO: &str = include_str!("../kernels/profile/request_echo.wgsl");
const ONE_INVOCATION: &str = include_str!("../kernels/profile/one_invocation.wgsl");

/// Profiles `source` through the library, on the default adapter.
fn profiled(source: &str, configure: impl FnOnce(&mut Request)) -> Profile {
    util::profiled_as("test.wgsl", source, 3, configure).profile
}

/// `divlab profile` in `dir` with `args`.
fn cli(dir: &tempfile::TempDir, args: &[&str]) -> Run {
    let _gpu = util::gpu_shared();
    let mut cmd = divlab(dir.path());
    cmd.arg("profile").args(args);
    run(cmd)
}

/// Writes `source` to `dir/name` and runs `divlab profile name ARGS... extra...`, with the
/// arguments of the kernel's first line.
fn cli_kernel(dir: &tempfile::TempDir, name: &str, source: &str, extra: &[&str]) -> Run {
    std::fs::write(path_in(dir, name), source).unwrap();
    let args = util::header_args(source).expect("the kernel's first line gives its arguments");
    let mut all: Vec<&str> = vec![name];
    all.extend(args.iter().map(String::as_str));
    all.extend(extra);
    cli(dir, &all)
}

fn read_json(dir: &tempfile::TempDir, name: &str) -> Value {
    let text = std::fs::read_to_string(path_in(dir, name)).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"))
}

/// The report without its `time:` and `compile:` lines, the parts that differ between runs.
fn without_times(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("time: ") && !l.starts_with("compile: "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The profile's subgroup width, checked against the device's.
fn width(p: &Profile) -> u32 {
    let sg = p.subgroup_size.expect("lavapipe has subgroups");
    assert_eq!(sg, util::expected_subgroup_size());
    assert!(sg >= 4 && 64 % sg == 0, "the kernels assume 4 ≤ SG | 64");
    sg
}

/// profile → --json → --import prints the same report, times aside; the document written
/// again from the import is the same document, and so is its CSV.
#[test]
fn a_document_round_trips_through_import() {
    let dir = temp_dir();
    let first = cli_kernel(
        &dir,
        "k.wgsl",
        THREE_BRANCHES,
        &["--json", "p.json", "--csv", "p.csv"],
    );
    first.assert_code(0);
    assert!(first.stdout.contains("lane branch"), "{first}");
    // The kernel file is gone, and the backend asked for has no adapter here (metal on Linux,
    // vulkan elsewhere): the import needs nothing but the document.
    std::fs::remove_file(path_in(&dir, "k.wgsl")).unwrap();
    let absent = if cfg!(target_os = "macos") {
        "vulkan"
    } else {
        "metal"
    };
    let again = cli(
        &dir,
        &[
            "--import",
            "p.json",
            "--json",
            "q.json",
            "--csv",
            "q.csv",
            "--backend",
            absent,
        ],
    );
    again.assert_code(0);
    // A run on that backend would have failed for want of an adapter.
    std::fs::write(path_in(&dir, "k2.wgsl"), THREE_BRANCHES).unwrap();
    cli(&dir, &["k2.wgsl", "--backend", absent]).assert_code(2);
    assert_eq!(
        without_times(&again.stdout),
        without_times(&first.stdout),
        "the imported report differs\n{again}"
    );
    let line = |r: &Run, start: &str| {
        r.stdout
            .lines()
            .find(|l| l.starts_with(start))
            .map(str::to_owned)
    };
    for start in ["time: ", "compile: "] {
        assert!(line(&first, start).is_some(), "{first}");
        assert_eq!(
            line(&again, start),
            line(&first, start),
            "the document's {start}"
        );
    }
    let read = |name: &str| std::fs::read(path_in(&dir, name)).unwrap();
    assert_eq!(read("q.json"), read("p.json"), "the document written again");
    assert_eq!(
        read("q.csv"),
        read("p.csv"),
        "the CSV of the imported document"
    );
}

/// Schema 2 records the divlab, the time, the request as asked (in the command line's forms)
/// and the source text; the timing records the reps that ran and the budget, and the document
/// the time the driver spent compiling.
#[test]
fn schema_2_records_the_request_and_the_source() {
    let dir = temp_dir();
    let body = line_of(REQUEST_ECHO, "// body");
    let lanes = body.to_string();
    let before = SystemTime::now() - Duration::from_secs(2);
    let started = Instant::now();
    let out = cli_kernel(
        &dir,
        "echo.wgsl",
        REQUEST_ECHO,
        &[
            "--reps",
            "4",
            "--loop-cap",
            "500",
            "--lanes",
            &lanes,
            "--time-budget",
            "120",
            "--json",
            "p.json",
        ],
    );
    let wall = started.elapsed().as_secs_f64();
    out.assert_code(0);
    let doc = read_json(&dir, "p.json");
    assert_eq!(doc["schema_version"], 3);
    // The driver's compiles, a part of the run's wall time and none of the timed runs'.
    let compile_s = doc["compile_s"].as_f64().expect("compile_s recorded");
    assert!(
        compile_s > 0.0 && compile_s < wall,
        "{compile_s} s of {wall} s"
    );
    assert_eq!(report::PROFILE_SCHEMA_VERSION, 3);
    let version = doc["divlab_version"].as_str().unwrap();
    assert!(
        version.starts_with(&format!("{} (", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    let created = doc["created"].as_str().unwrap();
    assert!(created.ends_with('Z'), "UTC: {created}");
    let at = humantime::parse_rfc3339(created).unwrap_or_else(|e| panic!("{created}: {e}"));
    assert!(
        at >= before && at <= SystemTime::now(),
        "created {created} is not the time of the run"
    );
    assert_eq!(
        doc["request"],
        json!({
            "entry": null,
            "dispatch": [2, 1, 1],
            "buffers": ["data=iota"],
            "lens": ["data=128"],
            "overrides": ["SCALE=3"],
            "textures": [],
            "reps": 4,
            "time_budget_s": 120.0,
            "loop_cap": 500,
            "lanes": body,
        })
    );
    assert_eq!(doc["source"], REQUEST_ECHO, "the source text as profiled");
    assert_eq!(doc["loop_cap"], 500, "the cap in force");
    // The budget is far from spent: every asked rep ran.
    assert_eq!(doc["timing"]["reps"], 4);
    assert_eq!(doc["timing"]["time_budget_s"], 120.0);
    let sg = u64::from(util::expected_subgroup_size());
    assert_eq!(doc["subgroup_size"], sg);
    assert_eq!(
        doc["widest_ballot"], sg,
        "64-invocation workgroups fill every lane"
    );
    assert_eq!(doc["lanes"]["line"], body);
    // The override reached the kernel: the loop's trips are data[i] % 4 with iota data, so
    // lane i runs i % 4 trips and the body's lanes total Σ over 128 invocations.
    let trips: u64 = (0..128u64).map(|i| i % 4).sum();
    let body_line = doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["line"] == body)
        .expect("the body is profiled");
    assert_eq!(body_line["active_lanes"], trips, "{body_line:#}");
}

/// `--no-source` leaves the text out of the document and the CSV, not out of the report; the
/// document still imports, showing its figures without text.
#[test]
fn no_source_leaves_the_text_out_and_import_still_prints() {
    let dir = temp_dir();
    let first = cli_kernel(
        &dir,
        "k.wgsl",
        THREE_BRANCHES,
        &["--no-source", "--json", "p.json", "--csv", "p.csv"],
    );
    first.assert_code(0);
    assert!(
        first.stdout.contains("// lane then"),
        "the live report has the source"
    );
    let doc = read_json(&dir, "p.json");
    assert_eq!(doc["source"], Value::Null);
    let csv = std::fs::read_to_string(path_in(&dir, "p.csv")).unwrap();
    assert!(
        !csv.contains("lane then"),
        "the CSV has no source text:\n{csv}"
    );
    let again = cli(&dir, &["--import", "p.json"]);
    again.assert_code(0);
    assert!(!again.stdout.contains("lane then"), "{again}");
    assert!(again.stdout.contains("written with --no-source"), "{again}");
    // Each profiled line shows the figures it had in the live report.
    let then = line_of(THREE_BRANCHES, "// lane then");
    let gutter = |text: &str| {
        text.lines()
            .find(|l| l.contains(&format!("| {then:>4}  ")))
            .map(|l| l.split('|').next().unwrap_or_default().to_owned())
    };
    assert!(gutter(&first.stdout).is_some(), "{first}");
    assert_eq!(gutter(&again.stdout), gutter(&first.stdout), "{again}");
    let rows = doc["lines"].as_array().unwrap().len();
    let numbered = |l: &&str| {
        l.split_once(" | ")
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(|c: char| c.is_ascii_digit()))
    };
    let shown = again.stdout.lines().filter(numbered).count();
    assert_eq!(shown, rows, "one row per profiled line\n{again}");
}

/// Every file that is not a schema-2 or schema-3 profile document is exit 2 with a message that says what
/// it is and what to do: no panic, no raw serde message, nothing on stdout.
#[test]
fn import_refuses_what_is_not_a_schema_2_profile() {
    let p = profiled(THREE_BRANCHES, |r| r.dispatch = [2, 1, 1]);
    let good = report::json_bytes(&p);
    let doc: Value = serde_json::from_slice(&good).unwrap();
    let dir = temp_dir();
    let write = |name: &str, bytes: &[u8]| std::fs::write(path_in(&dir, name), bytes).unwrap();
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut d = doc.clone();
        edit(&mut d);
        serde_json::to_vec_pretty(&d).unwrap()
    };
    write("good.json", &good);
    write("truncated.json", &good[..good.len() / 2]);
    write("empty.json", b"");
    write("garbage.json", b"this is not json\n");
    write("kernel.wgsl", b"@compute @workgroup_size(1) fn main() {}\n");
    write("v1.json", &with(&|d| d["schema_version"] = json!(1)));
    write("v4.json", &with(&|d| d["schema_version"] = json!(4)));
    write("array.json", b"[1, 2, 3]\n");
    write("other.json", b"{\"name\": \"a package.json\"}\n");
    write(
        "damaged.json",
        &with(&|d| d["lines"][0]["executions"] = json!("many")),
    );
    let bench = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/schema2-lavapipe-sg8.json");
    std::fs::copy(&bench, path_in(&dir, "bench.json")).unwrap();
    std::fs::create_dir(path_in(&dir, "folder.json")).unwrap();
    cli(&dir, &["--import", "good.json"]).assert_code(0);
    // serde_json writes an infinite overhead (a kernel too short for the timestamps) as null:
    // such a document still imports.
    write(
        "null_time.json",
        &with(&|d| d["timing"]["overhead"] = Value::Null),
    );
    let out = cli(&dir, &["--import", "null_time.json"]);
    out.assert_code(0);
    assert!(out.stdout.contains("(overhead not measured)"), "{out}");
    // The file, what the message must say is wrong, and what it must say to do.
    let rewrite = "write it again with `divlab profile KERNEL.wgsl --json FILE`";
    let cases: &[(&str, &str, &str)] = &[
        ("truncated.json", "the file is truncated", rewrite),
        ("empty.json", "the file is truncated", rewrite),
        (
            "garbage.json",
            "not JSON (a syntax error at line 1, column",
            "`divlab profile --json FILE` writes",
        ),
        (
            "v1.json",
            "a profile of schema 1, written by an older divlab",
            "profile the kernel again with --json",
        ),
        (
            "v4.json",
            "a profile of schema 4, written by a newer divlab",
            "import it with the divlab that wrote it",
        ),
        ("array.json", "the JSON is an array, not an object", rewrite),
        (
            "other.json",
            "not a profile document (it has no `kernel` and `lines`)",
            rewrite,
        ),
        ("damaged.json", "at `lines[0].executions`", rewrite),
        (
            "bench.json",
            "a `divlab bench` result document, not a profile",
            "read it with `divlab compare`",
        ),
        ("folder.json", "a directory, not a profile document", ""),
        (
            "kernel.wgsl",
            "not JSON (a syntax error at line 1, column",
            "this is a WGSL kernel: leave out --import to profile it",
        ),
        ("missing.json", "cannot read it", "No such file"),
    ];
    for (file, what, todo) in cases {
        let out = cli(&dir, &["--import", file]);
        out.assert_code(2);
        let first = out.stderr.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(&format!("error: --import {file}: ")),
            "the message names the option and the file\n{out}"
        );
        assert!(out.stderr.contains(what), "expected `{what}`\n{out}");
        assert!(out.stderr.contains(todo), "expected `{todo}`\n{out}");
        assert!(
            out.stdout.is_empty(),
            "nothing is printed for a bad file\n{out}"
        );
        for raw in [
            "EOF while parsing",
            "expected value at",
            "trailing characters",
        ] {
            assert!(!out.stderr.contains(raw), "a raw serde message\n{out}");
        }
    }
}

/// The CSV: a header, a kernel row, then one row per line and one per branch, in the document's
/// order, with the JSON's figures written in full.
#[test]
fn csv_has_a_row_per_line_and_branch_equal_to_the_json() {
    let dir = temp_dir();
    cli_kernel(
        &dir,
        "k.wgsl",
        THREE_BRANCHES,
        &["--json", "p.json", "--csv", "p.csv"],
    )
    .assert_code(0);
    let doc = read_json(&dir, "p.json");
    let mut reader = csv::Reader::from_path(path_in(&dir, "p.csv")).unwrap();
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(header, report::csv_header());
    let col = |name: &str| CSV_COLUMNS.iter().position(|c| c.name == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let kind = |r: &csv::StringRecord| r[col("kind")].to_owned();
    let lines: Vec<&csv::StringRecord> = rows.iter().filter(|r| kind(r) == "line").collect();
    let branches: Vec<&csv::StringRecord> = rows.iter().filter(|r| kind(r) == "branch").collect();
    let json_lines = doc["lines"].as_array().unwrap();
    let json_branches = doc["branches"].as_array().unwrap();
    assert_eq!(kind(&rows[0]), "kernel");
    assert_eq!(lines.len(), json_lines.len());
    assert_eq!(branches.len(), json_branches.len());
    assert_eq!(rows.len(), 1 + lines.len() + branches.len());
    assert!(
        branches.len() == 3,
        "the kernel has three branches: {json_branches:#?}"
    );
    // A cell against a JSON value: empty for null, else the same number.
    let same = |cell: &str, value: &Value, what: &str| match value {
        Value::Null => assert_eq!(cell, "", "{what}"),
        Value::Number(n) => {
            let got: f64 = cell.parse().unwrap_or_else(|_| panic!("{what}: `{cell}`"));
            assert_eq!(got, n.as_f64().unwrap(), "{what}");
        }
        Value::String(s) => assert_eq!(cell, s, "{what}"),
        other => panic!("{what}: {other}"),
    };
    let source: Vec<&str> = THREE_BRANCHES.lines().collect();
    for (row, l) in lines.iter().zip(json_lines) {
        let n = l["line"].as_u64().unwrap();
        same(&row[col("line")], &l["line"], "line");
        assert_eq!(&row[col("file")], "k.wgsl");
        assert_eq!(
            &row[col("source")],
            source[n as usize - 1],
            "line {n}'s text"
        );
        same(&row[col("static")], &l["static"], "static");
        for field in ["executions", "active_lanes", "efficiency"] {
            same(&row[col(field)], &l[field], &format!("line {n} {field}"));
        }
        assert_eq!(&row[col("branch")], "");
    }
    for (row, b) in branches.iter().zip(json_branches) {
        let n = b["line"].as_u64().unwrap();
        same(&row[col("line")], &b["line"], "line");
        same(&row[col("branch")], &b["kind"], "kind");
        same(&row[col("evaluations")], &b["executions"], "evaluations");
        for field in ["divergent", "divergent_fraction", "wasted_lane_slots"] {
            same(&row[col(field)], &b[field], &format!("branch {n} {field}"));
        }
        let efficiency: f64 = row[col("branch_efficiency")].parse().unwrap();
        assert_eq!(efficiency, 1.0 - b["divergent_fraction"].as_f64().unwrap());
    }
    let kernel = &rows[0];
    same(
        &kernel[col("efficiency")],
        &doc["control_flow_efficiency"],
        "control-flow efficiency",
    );
    same(
        &kernel[col("branch_efficiency")],
        &doc["branch_efficiency"],
        "branch efficiency",
    );
    same(&kernel[col("subgroup_size")], &doc["subgroup_size"], "W");
    let total = |field: &str| -> u64 {
        json_branches
            .iter()
            .map(|b| b[field].as_u64().unwrap())
            .sum()
    };
    assert_eq!(
        kernel[col("evaluations")].parse::<u64>().unwrap(),
        total("executions")
    );
    assert_eq!(
        kernel[col("divergent")].parse::<u64>().unwrap(),
        total("divergent")
    );
}

/// Two workgroups of S = 64/SG subgroups. The lane branch (`gid.x % 4 == 0`) splits every
/// subgroup: 2S evaluations, 2S divergent. The workgroup branch never splits: 2S, 0. The run
/// branch inside it (`lid % 16 < 8`, runs of 8 lanes) is evaluated by workgroup 1's S
/// subgroups and splits each only where SG > 8. Branch efficiency: 1 − (2S + d) / 5S.
#[test]
fn branch_efficiency_is_one_minus_divergent_over_evaluations() {
    let p = profiled(THREE_BRANCHES, |r| r.dispatch = [2, 1, 1]);
    let sg = width(&p);
    let s = u64::from(64 / sg);
    let run_divergent = if sg > 8 { s } else { 0 };
    let at = |marker: &str| line_of(THREE_BRANCHES, marker);
    let lane = branch(&p, at("// lane branch"), "if");
    assert_eq!((lane.executions, lane.divergent), (2 * s, 2 * s));
    let group = branch(&p, at("// workgroup branch"), "if");
    assert_eq!((group.executions, group.divergent), (2 * s, 0));
    let run = branch(&p, at("// run branch"), "if");
    assert_eq!((run.executions, run.divergent), (s, run_divergent));
    assert_eq!(p.branches.len(), 3, "{:#?}", p.branches);
    let want = 1.0 - (2 * s + run_divergent) as f64 / (5 * s) as f64;
    let got = p.branch_efficiency.expect("the branches were evaluated");
    assert!(
        (got - want).abs() < 1e-12,
        "branch efficiency {got}, expected {want}"
    );
    assert_eq!(report::branch_efficiency(&p.branches), Some(got));
    let text = report::render_text(&p);
    let headline = format!("branch efficiency: {:.1}%", want * 100.0);
    assert!(text.contains(&headline), "expected `{headline}`\n{text}");
}

/// A workgroup of one invocation fills one lane of its subgroup: every line's efficiency is
/// 1/W, the widest ballot is 1, and where W > 1 a note says what caps it. A kernel without
/// branches has no branch efficiency.
#[test]
fn one_invocation_workgroups_are_measured_against_the_subgroup_width() {
    let p = profiled(ONE_INVOCATION, |r| r.dispatch = [4, 1, 1]);
    assert_eq!(p.widest_ballot, Some(1));
    let w = p.subgroup_size.expect("lavapipe has subgroups");
    let store = line_of(ONE_INVOCATION, "// store");
    let l = p.lines.iter().find(|l| l.line == store).expect("the store");
    assert_eq!((l.executions, l.active_lanes), (4, Some(4)));
    let want = 1.0 / f64::from(w);
    assert_eq!(l.efficiency, Some(want), "active lanes / (executions × W)");
    assert_eq!(p.control_flow_efficiency, Some(want));
    let note = report::width_note([1, 1, 1], Some(w), p.widest_ballot);
    assert_eq!(note.is_some(), w > 1);
    if let Some(note) = note {
        assert!(p.notes.contains(&note), "{:#?}", p.notes);
    }
    assert_eq!(p.branch_efficiency, None, "no branches, no evaluations");
    assert!(!report::render_text(&p).contains("branch efficiency"));
}

/// The note's numbers come from the workgroup and the width.
#[test]
fn the_width_note_says_what_caps_lane_efficiency() {
    assert_eq!(
        report::width_note([1, 1, 1], Some(8), None).as_deref(),
        Some("workgroups of 1 invocation fill 1 of 8 lanes; lane efficiency cannot exceed 12.5%")
    );
    assert_eq!(
        report::width_note([2, 2, 1], Some(32), None).as_deref(),
        Some(
            "workgroups of 4 invocations fill 4 of 32 lanes; lane efficiency cannot exceed \
             12.5%"
        )
    );
    assert_eq!(
        report::width_note([3, 1, 1], Some(4), None).as_deref(),
        Some("workgroups of 3 invocations fill 3 of 4 lanes; lane efficiency cannot exceed 75%")
    );
    assert_eq!(report::width_note([8, 1, 1], Some(8), None), None);
    assert_eq!(report::width_note([64, 1, 1], Some(32), None), None);
    assert_eq!(report::width_note([1, 1, 1], None, None), None);
    // A workgroup that could fill its subgroups, whose widest ballot was narrower: a 4×2×4 one
    // on an adapter that fills a subgroup from one row along x.
    let note = report::width_note([4, 2, 4], Some(8), Some(4)).unwrap();
    assert!(note.starts_with("subgroups are never full: the widest ballot at the kernel's entry held 4 of 8 lanes, so lane efficiency cannot exceed 50% on any line"), "{note}");
    assert!(
        note.contains("4×2×4 = 32 invocations could fill 4 subgroups of 8"),
        "{note}"
    );
    assert!(
        note.contains("one row of the workgroup along x (4 invocations)"),
        "{note}"
    );
    assert_eq!(report::width_note([4, 2, 4], Some(8), Some(8)), None);
    assert_eq!(report::width_note([64, 1, 1], Some(32), Some(32)), None);
}

/// `--reps 0`, `--loop-cap 0` and a budget that is not above zero are usage errors (exit 2,
/// from clap, naming the option), as are --import with a kernel file and neither of them.
#[test]
fn zero_reps_loop_cap_and_budget_are_refused() {
    let dir = temp_dir();
    std::fs::write(path_in(&dir, "k.wgsl"), ONE_INVOCATION).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["k.wgsl", "--reps", "0"], "--reps"),
        (&["k.wgsl", "--loop-cap", "0"], "--loop-cap"),
        (&["k.wgsl", "--time-budget", "0"], "--time-budget"),
        (&["k.wgsl", "--time-budget", "-1"], "--time-budget"),
        (&["k.wgsl", "--time-budget", "NaN"], "--time-budget"),
        (&["k.wgsl", "--time-budget", "soon"], "not a time budget"),
        (&["k.wgsl", "--import", "p.json"], "--import"),
        (&["--import", "p.json", "--reps", "3"], "--reps"),
        (&[], "<FILE>"),
    ];
    for (args, needle) in cases {
        let out = cli(&dir, args);
        out.assert_code(2);
        assert!(out.stderr.contains(needle), "expected `{needle}`\n{out}");
        assert!(
            !out.stderr.contains("llvmpipe"),
            "no adapter was opened\n{out}"
        );
    }
}

/// The timed runs: with a budget spent at once, the minimum of 3 (or --reps where fewer); with
/// room to spare, every --reps. The document records what ran and the budget.
#[test]
fn the_time_budget_bounds_the_timed_runs() {
    let reps_with = |reps: usize, budget: Duration| {
        let p = profiled(ONE_INVOCATION, |r| {
            r.reps = reps;
            r.time_budget = budget;
        });
        let t = p.timing.expect("the kernel ends, so it is timed");
        assert_eq!(t.time_budget_s, budget.as_secs_f64());
        assert_eq!(p.request.reps, reps);
        t.reps
    };
    assert_eq!(reps_with(40, Duration::from_nanos(1)), 3, "the minimum");
    assert_eq!(reps_with(2, Duration::from_nanos(1)), 2, "at most --reps");
    assert_eq!(reps_with(7, Duration::from_secs(600)), 7, "every asked rep");
    // Through the binary too.
    let dir = temp_dir();
    let out = cli_kernel(
        &dir,
        "k.wgsl",
        ONE_INVOCATION,
        &[
            "--reps",
            "40",
            "--time-budget",
            "0.000001",
            "--json",
            "p.json",
        ],
    );
    out.assert_code(0);
    let doc = read_json(&dir, "p.json");
    assert_eq!(doc["timing"]["reps"], 3);
    assert_eq!(doc["timing"]["time_budget_s"], 0.000001);
    assert_eq!(doc["request"]["reps"], 40);
    assert!(out.stdout.contains("medians of 3 runs"), "{out}");
}

/// A profile that runs past two seconds draws its progress only on a terminal: a test's piped
/// stderr gets the report's errors and nothing else.
#[test]
fn progress_stays_off_a_stderr_that_is_not_a_terminal() {
    let dir = temp_dir();
    let start = std::time::Instant::now();
    let out = cli_kernel(
        &dir,
        "k.wgsl",
        ONE_INVOCATION,
        &["--reps", "1000000", "--time-budget", "2.5"],
    );
    out.assert_code(0);
    assert!(
        start.elapsed() > Duration::from_secs(2),
        "the run was meant to be long"
    );
    assert!(
        !out.stderr.contains("profiling") && !out.stderr.contains("timing:"),
        "progress on a pipe\n{out}"
    );
}
