//! The `divlab` binary, run for real in a temporary directory: exit codes, messages, and the
//! files `--bench` writes.

use divlab::gpu::adapters::{AdapterEntry, create_instance, list_adapters};
use divlab::report::{ExperimentStatus, read_json};

use crate::util;
use crate::util::{divlab, expected_subgroup_size, path_in, run, temp_dir};

/// The adapter divlab picks by default, as the library sees it. Panics when there is none.
fn default_adapter() -> AdapterEntry {
    list_adapters(&create_instance(None), None)
        .into_iter()
        .map(|(entry, _)| entry)
        .find(|e| e.is_default)
        .expect("wgpu found no adapter; run `scripts/setup` to install Mesa's lavapipe")
}

/// The adapter name as `divlab adapters` prints it: the table cuts names at 36 characters.
fn shown_name(entry: &AdapterEntry) -> String {
    entry.info.name.chars().take(30).collect()
}

#[test]
fn adapters_marks_the_default_with_a_star() {
    let _gpu = util::gpu_shared();
    let default = default_adapter();
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.arg("adapters");
    let out = run(cmd);
    out.assert_code(0);
    let rows: Vec<Vec<&str>> = out
        .stdout
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let starred: Vec<&Vec<&str>> = rows.iter().filter(|r| r.get(1) == Some(&"*")).collect();
    assert_eq!(
        starred.len(),
        1,
        "exactly one row has the `*` default marker\n{out}"
    );
    let row = starred[0];
    let line = row.join(" ");
    assert_eq!(row[0], "0", "the default is adapter #0\n{out}");
    assert!(
        line.contains(&shown_name(&default)),
        "the `*` row is not `{}`\n{out}",
        default.info.name
    );
    assert!(
        row.contains(&"vulkan"),
        "the default adapter is not the Vulkan one\n{out}"
    );
    // The last three columns: subgroup size range, subgroups, timestamps.
    assert_eq!(
        row[row.len() - 2],
        "yes",
        "the default adapter has no subgroups\n{out}"
    );
    let expected = expected_subgroup_size();
    let range = row[row.len() - 3];
    let (min, max) = range
        .split_once("..")
        .unwrap_or_else(|| panic!("no range in {line}"));
    let (min, max): (u32, u32) = (min.parse().expect("min"), max.parse().expect("max"));
    assert!(
        (min..=max).contains(&expected),
        "{range} lacks {expected}\n{out}"
    );
    let count = list_adapters(&create_instance(None), None).len();
    assert_eq!(rows.len(), count, "one row per adapter\n{out}");
}

#[test]
fn unknown_adapter_exits_2_and_lists_adapters() {
    let _gpu = util::gpu_shared();
    let default = default_adapter();
    let dir = temp_dir();
    let cases: [&[&str]; 3] = [
        &[
            "--bench",
            "--quick",
            "--only",
            "subgroup.size",
            "--adapter",
            "no-such-gpu-4711",
        ],
        &["adapters", "--adapter", "no-such-gpu-4711"],
        &["--bench", "--quick", "--adapter", "4711"],
    ];
    for args in cases {
        let mut cmd = divlab(dir.path());
        cmd.args(args);
        let out = run(cmd);
        out.assert_code(2);
        let wanted = args.last().expect("args end with the adapter");
        assert!(
            out.stderr.contains(wanted),
            "stderr does not repeat `{wanted}`\n{out}"
        );
        assert!(
            out.stderr.contains("name"),
            "stderr has no adapter table\n{out}"
        );
        assert!(
            out.stderr.contains(&shown_name(&default)),
            "stderr does not list `{}`\n{out}",
            default.info.name
        );
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("dir").count(),
        0,
        "files were written"
    );
}

#[test]
fn unknown_backend_exits_2() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let mut flag = divlab(dir.path());
    flag.args(["--bench", "--quick", "--backend", "glide"]);
    let mut env = divlab(dir.path());
    env.args(["--bench", "--quick"])
        .env("WGPU_BACKEND", "glide");
    for cmd in [flag, env] {
        let out = run(cmd);
        out.assert_code(2);
        assert!(
            out.stderr.contains("glide"),
            "stderr does not name the backend\n{out}"
        );
        assert!(
            out.stderr.contains("vulkan"),
            "stderr does not list the backends\n{out}"
        );
    }
}

#[test]
fn only_matching_nothing_exits_2() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.args([
        "--bench",
        "--quick",
        "--only",
        "nothing-matches",
        "--json",
        "out.json",
    ]);
    let out = run(cmd);
    out.assert_code(2);
    assert!(
        out.stderr.contains("nothing-matches"),
        "stderr does not repeat --only\n{out}"
    );
    assert!(
        out.stderr.contains("subgroup.size"),
        "stderr does not list the ids\n{out}"
    );
    assert!(
        !path_in(&dir, "out.json").exists(),
        "--json was written anyway\n{out}"
    );
}

#[test]
fn bench_writes_strict_json_and_csv() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    // The divergence study has its own (library) test; here the CLI plumbing is the point.
    cmd.args([
        "--bench",
        "--quick",
        "--only",
        "subgroup.size",
        "--json",
        "out.json",
        "--csv",
        "out.csv",
    ]);
    let out = run(cmd);
    out.assert_code(0);
    assert!(
        out.stdout.contains("adapter: "),
        "no adapter line in the summary\n{out}"
    );
    assert!(
        out.stdout.contains("subgroup.size"),
        "no subgroup.size in the summary\n{out}"
    );

    let doc = read_json(&path_in(&dir, "out.json"))
        .unwrap_or_else(|e| panic!("--json output does not parse strictly: {e}\n{out}"));
    let expected = expected_subgroup_size();
    assert_eq!(doc.adapter.observed_subgroup_size, Some(expected), "{out}");
    for e in &doc.experiments {
        assert!(
            out.stdout.contains(&e.id),
            "the summary lacks `{}`\n{out}",
            e.id
        );
        assert_ne!(
            e.status,
            ExperimentStatus::Error,
            "`{}`: {}",
            e.id,
            e.status_detail
        );
    }
    let size = doc
        .experiments
        .iter()
        .find(|e| e.id == "subgroup.size")
        .unwrap_or_else(|| panic!("no subgroup.size in out.json\n{out}"));
    assert_eq!(size.status, ExperimentStatus::Ok, "{}", size.status_detail);
    assert_eq!(
        size.metrics.get("observed_subgroup_size"),
        Some(&f64::from(expected))
    );

    let mut csv = csv::Reader::from_path(path_in(&dir, "out.csv")).expect("out.csv opens");
    let header = csv.headers().expect("out.csv has a header").clone();
    assert_eq!(
        header.iter().collect::<Vec<_>>(),
        ["adapter", "experiment", "status", "kind", "name", "value"]
    );
    let rows: Vec<csv::StringRecord> = csv
        .records()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("out.csv does not parse: {e}"));
    let count = |kind: &str| rows.iter().filter(|r| &r[3] == kind).count();
    let metrics: usize = doc.experiments.iter().map(|e| e.metrics.len()).sum();
    let verdicts: usize = doc.experiments.iter().map(|e| e.verdicts.len()).sum();
    assert_eq!(count("metric"), metrics, "one CSV row per metric");
    assert_eq!(count("verdict"), verdicts, "one CSV row per verdict");
    for r in &rows {
        assert_eq!(&r[0], doc.adapter.name, "adapter column in {r:?}");
        assert!(
            doc.experiments.iter().any(|e| e.id == r[1]),
            "unknown experiment in {r:?}"
        );
    }
    let observed = rows
        .iter()
        .find(|r| {
            &r[1] == "subgroup.size" && &r[3] == "metric" && &r[4] == "observed_subgroup_size"
        })
        .expect("a CSV row for observed_subgroup_size");
    assert_eq!(
        observed[5].parse::<f64>().ok(),
        Some(f64::from(expected)),
        "{observed:?}"
    );
}

/// `LP_NATIVE_VECTOR_WIDTH=128` halves llvmpipe's vectors, so lavapipe's subgroups hold 4 lanes.
#[test]
fn lavapipe_with_128_bit_vectors_has_subgroup_size_4() {
    let _gpu = util::gpu_shared();
    let default = default_adapter();
    if !(default.info.name.contains("llvmpipe") && default.info.backend == wgpu::Backend::Vulkan) {
        // The one test that may pass without checking: LP_NATIVE_VECTOR_WIDTH only means
        // something to lavapipe.
        eprintln!(
            "not checking LP_NATIVE_VECTOR_WIDTH=128: the default adapter is `{}` ({:?}), \
             not lavapipe",
            default.info.name, default.info.backend
        );
        return;
    }
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.args([
        "--bench",
        "--only",
        "subgroup.size",
        "--quick",
        "--json",
        "out.json",
    ])
    .env("LP_NATIVE_VECTOR_WIDTH", "128");
    let out = run(cmd);
    out.assert_code(0);
    let doc = read_json(&path_in(&dir, "out.json"))
        .unwrap_or_else(|e| panic!("--json output does not parse strictly: {e}\n{out}"));
    assert_eq!(doc.adapter.observed_subgroup_size, Some(4), "{out}");
    assert_eq!(
        (doc.adapter.subgroup_min_size, doc.adapter.subgroup_max_size),
        (4, 4),
        "{out}"
    );
    let ids: Vec<&str> = doc.experiments.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["subgroup.size"], "--only subgroup.size\n{out}");
    let size = &doc.experiments[0];
    assert_eq!(
        size.metrics.get("observed_subgroup_size"),
        Some(&4.0),
        "{out}"
    );
    assert!(out.stdout.contains("observed subgroup size: 4"), "{out}");
    assert!(
        size.verdicts
            .iter()
            .any(|v| v.detail.contains("linear (sid = lid % 4)")),
        "the mapping is not linear with size 4: {:?}",
        size.verdicts
    );
}
