//! The reconvergence fuzzer on the default adapter (lavapipe in CI): generated programs
//! terminate and match the simulation, the shrinker works on real runs, and `divlab fuzz`
//! prints its table and writes reproducers.

use divlab::fuzz::{Size, Style, compare, program_for, run_program, shrink, wgsl};
use divlab::model::reconvergence::simulate;

use crate::util;
use crate::util::{divlab, path_in, run, temp_dir};

/// 200 seeds spread over the seed space: every program finishes within the device timeout
/// (which turns a hang into an error) and, on lavapipe, matches maximal reconvergence.
#[test]
fn two_hundred_random_programs_terminate_and_match() {
    let _gpu = util::gpu_shared();
    let gpu = util::gpu();
    let mut rng = fastrand::Rng::with_seed(0xf022);
    let mut failing = Vec::new();
    for _ in 0..200 {
        let seed = rng.u64(..);
        let program = program_for(seed, Size::Medium, Style::Maximal);
        let run = run_program(&gpu, &program)
            .unwrap_or_else(|e| panic!("seed {seed} did not complete: {e}"));
        let expected = simulate(&program, &run.layout);
        if !compare(&expected, &run, Style::Maximal, 1).is_empty() {
            failing.push(seed);
        }
    }
    assert!(
        failing.is_empty(),
        "seeds that did not match on lavapipe: {failing:?}"
    );
}

/// Shrinking against a stricter rule than the model's ("every ballot holds the whole
/// subgroup"), on real runs: the reproducer still breaks the rule and is small.
#[test]
fn shrinking_real_runs_gives_a_small_reproducer() {
    let _gpu = util::gpu_shared();
    let gpu = util::gpu();
    let breaks_rule = |p: &divlab::model::reconvergence::Program| {
        run_program(&gpu, p).is_ok_and(|run| {
            run.observed.iter().enumerate().any(|(i, o)| {
                let subgroup = run.layout.subgroups[run.layout.subgroup[i]];
                o.records.iter().any(|&(_, ballot)| ballot != subgroup)
            })
        })
    };
    let seed = (0..50)
        .find(|&s| breaks_rule(&program_for(s, Size::Medium, Style::Maximal)))
        .expect("some program of 50 diverges inside a subgroup");
    let original = program_for(seed, Size::Medium, Style::Maximal);
    let (small, _) = shrink::shrink(&original, 400, breaks_rule);
    assert!(
        breaks_rule(&small),
        "the shrunk program still breaks the rule"
    );
    let lines = wgsl::body_lines(&wgsl::emit(&small));
    assert!(
        lines <= 30,
        "seed {seed}: {lines} lines\n{}",
        wgsl::emit(&small)
    );
}

/// The table and `--json` tell the same pass rates; `reproducers:` is printed, and
/// `reproducers` set, only where one was written (lavapipe passes these seeds: none).
#[test]
fn fuzz_prints_pass_rates_per_style() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let out = path_in(&dir, "repro");
    let json = path_in(&dir, "fuzz.json");
    let mut cmd = divlab(dir.path());
    cmd.args(["fuzz", "--seeds", "4", "--size", "small", "--out"])
        .arg(&out)
        .arg("--json")
        .arg(&json);
    let result = run(cmd);
    result.assert_code(0);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("--json wrote the file"))
            .expect("fuzz --json is JSON");
    assert_eq!(doc["schema_version"], 2);
    assert_eq!(doc["seeds"], 4);
    let adapter: divlab::report::AdapterRecord =
        serde_json::from_value(doc["adapter"].clone()).expect("a result's adapter record");
    assert!(result.stdout.contains(&adapter.name), "{doc}\n{result}");
    let styles = doc["styles"].as_array().expect("styles");
    assert_eq!(styles.len(), 3, "{doc}");
    for (style, entry) in ["maximal", "subgroup", "workgroup"].iter().zip(styles) {
        let row = result
            .stdout
            .lines()
            .find(|l| l.starts_with(style))
            .unwrap_or_else(|| panic!("no {style} row\n{result}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[1], "4", "4 programs per style\n{result}");
        assert_eq!(entry["style"], *style);
        assert_eq!(entry["programs"], 4);
        assert_eq!(entry["passed"].to_string(), cells[2], "{doc}\n{result}");
    }
    let written = styles
        .iter()
        .flat_map(|s| s["failures"].as_array().unwrap())
        .any(|f| !f["reproducer"].is_null());
    assert_eq!(doc["reproducers"].is_null(), !written, "{doc}");
    assert_eq!(result.stdout.contains("reproducers:"), written, "{result}");
}

#[test]
fn fuzz_with_zero_seeds_is_a_usage_error() {
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.args(["fuzz", "--seeds", "0"]);
    let result = run(cmd);
    result.assert_code(2);
    assert!(result.stderr.contains("--seeds"), "{result}");
}

/// The bench's fixed batch records a pass rate per style; lavapipe passes them all.
#[test]
fn bench_batch_records_pass_rates() {
    use divlab::experiments::fuzz::ReconvergenceFuzz;
    use divlab::experiments::{Lab, RunConfig, run_experiment};
    let _gpu = util::gpu_shared();
    let lab = Lab::new(util::gpu());
    let config = RunConfig {
        quick: true,
        reps: None,
        fuzz_seeds: None,
    };
    let result = run_experiment(&lab, &ReconvergenceFuzz, &config, &|_| {});
    assert_eq!(
        result.status,
        divlab::report::ExperimentStatus::Ok,
        "{}",
        result.status_detail
    );
    for style in ["maximal", "subgroup", "workgroup"] {
        let rate = result.metrics[&format!("pass_rate_{style}")];
        assert_eq!(rate, 1.0, "{style}: {:#?}", result.verdicts);
    }
}

#[test]
fn bench_with_zero_fuzz_seeds_is_a_usage_error() {
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.args(["--bench", "--only", "fuzz", "--fuzz-seeds", "0"]);
    let result = run(cmd);
    result.assert_code(2);
    assert!(result.stderr.contains("fuzz seeds"), "{result}");
}
