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

/// One round has no interval, so every verdict would rest on one time: `--reps 1` is refused
/// before anything runs, and no document is written.
#[test]
fn a_single_round_is_refused() {
    let dir = temp_dir();
    for reps in ["0", "1"] {
        let mut cmd = divlab(dir.path());
        cmd.args(["bench", "--quick", "--reps", reps, "--json", "out.json"]);
        let out = run(cmd);
        out.assert_code(2);
        assert!(
            out.stderr
                .contains(&format!("reps = {reps}: at least 2 are needed")),
            "{out}"
        );
        assert!(!path_in(&dir, "out.json").exists(), "{out}");
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

    // The build is recorded: version, commit, wgpu and naga.
    assert_eq!(doc.divlab_version, divlab::report::build::version_record());
    assert!(
        doc.divlab_version.contains("wgpu 30."),
        "{}",
        doc.divlab_version
    );

    // The CSV is the long export of the JSON document, byte for byte (docs/results.md).
    let csv_text = std::fs::read(path_in(&dir, "out.csv")).expect("out.csv");
    assert_eq!(
        String::from_utf8_lossy(&csv_text),
        String::from_utf8_lossy(&divlab::report::csv_bytes(&doc))
    );
    let mut csv = csv::Reader::from_reader(csv_text.as_slice());
    let header = csv.headers().expect("out.csv has a header").clone();
    assert_eq!(
        header.iter().collect::<Vec<_>>(),
        divlab::report::long_header()
    );
    let rows: Vec<csv::StringRecord> = csv
        .records()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("out.csv does not parse: {e}"));
    let col = |r: &csv::StringRecord, name: &str| {
        let i = header.iter().position(|h| h == name).expect("a column");
        r[i].to_owned()
    };
    let count = |kind: &str| rows.iter().filter(|r| col(r, "kind") == kind).count();
    let metrics: usize = doc.experiments.iter().map(|e| e.metrics.len()).sum();
    let verdicts: usize = doc.experiments.iter().map(|e| e.verdicts.len()).sum();
    assert_eq!(count("metric"), metrics, "one CSV row per metric");
    assert_eq!(count("verdict"), verdicts, "one CSV row per verdict");
    for r in &rows {
        assert_eq!(
            col(r, "adapter"),
            doc.adapter.name,
            "adapter column in {r:?}"
        );
        assert_eq!(col(r, "backend"), doc.adapter.backend, "{r:?}");
        assert_eq!(col(r, "subgroup_size"), expected.to_string(), "{r:?}");
        assert_eq!(col(r, "divlab_version"), doc.divlab_version, "{r:?}");
        assert_eq!(col(r, "created"), doc.created, "{r:?}");
        assert!(
            doc.experiments.iter().any(|e| e.id == col(r, "experiment")),
            "unknown experiment in {r:?}"
        );
    }
    // Every verdict row carries its stable key, status and detail in columns of their own.
    for e in &doc.experiments {
        for v in &e.verdicts {
            assert!(
                rows.iter().any(|r| col(r, "experiment") == e.id
                    && col(r, "kind") == "verdict"
                    && col(r, "key") == v.key
                    && col(r, "status") == v.status.as_str()
                    && col(r, "detail") == v.detail
                    && col(r, "check") == v.check),
                "no CSV row for {}.{}",
                e.id,
                v.key
            );
        }
    }
    let observed = rows
        .iter()
        .find(|r| {
            col(r, "experiment") == "subgroup.size"
                && col(r, "kind") == "metric"
                && col(r, "key") == "observed_subgroup_size"
        })
        .expect("a CSV row for observed_subgroup_size");
    assert_eq!(
        col(observed, "value").parse::<f64>().ok(),
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

/// `divlab bench` owns its options, and `--bench` is the same command: both run, and `--json -`
/// puts a strict document on stdout with the summary on stderr.
#[test]
fn bench_is_a_command_and_a_flag() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    for first in [["bench"], ["--bench"]] {
        let mut cmd = divlab(dir.path());
        cmd.args(first)
            .args(["--quick", "--only", "subgroup.size", "--json", "-"]);
        let out = run(cmd);
        out.assert_code(0);
        let doc = divlab::report::parse_json(&out.stdout)
            .unwrap_or_else(|e| panic!("stdout is not a result document: {e}\n{out}"));
        let ids: Vec<&str> = doc.experiments.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["subgroup.size"], "{out}");
        assert!(
            out.stderr.contains("adapter: "),
            "no summary on stderr\n{out}"
        );
    }
}

/// An option given to a command that does not take it is an error (exit 2) that names it.
#[test]
fn options_of_other_commands_are_errors() {
    let dir = temp_dir();
    let cases: [&[&str]; 5] = [
        &["--quick"],
        &["--json", "out.json"],
        &["adapters", "--quick"],
        &["compare", "--reps", "3", "a.json"],
        &["bench", "--seeds", "3"],
    ];
    for args in cases {
        let mut cmd = divlab(dir.path());
        cmd.args(args);
        let out = run(cmd);
        out.assert_code(2);
        let option = args
            .iter()
            .find(|a| a.starts_with("--"))
            .expect("an option");
        assert!(
            out.stderr.contains(option),
            "stderr does not name {option}\n{out}"
        );
        if args[0] == "--quick" {
            assert!(
                out.stderr.contains("divlab bench --quick"),
                "no hint where --quick belongs\n{out}"
            );
            // Not as a file for the app, as clap's own tip would offer.
            assert!(!out.stderr.contains("-- --quick"), "{out}");
        }
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("dir").count(),
        0,
        "files were written"
    );
}

/// `--version` names what a driver engineer needs: the commit, and the wgpu and naga that
/// compiled the kernels (the versions Cargo.lock pins).
#[test]
fn version_names_commit_wgpu_and_naga() {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock"))
        .expect("Cargo.lock");
    let pinned = |krate: &str| {
        let at = lock
            .find(&format!("name = \"{krate}\"\nversion = \""))
            .unwrap_or_else(|| panic!("{krate} is not in Cargo.lock"));
        let rest = &lock[at..];
        let rest = &rest[rest.find("version = \"").expect("a version") + 11..];
        rest[..rest.find('"').expect("a closing quote")].to_owned()
    };
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.arg("--version");
    let out = run(cmd);
    out.assert_code(0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0],
        concat!("divlab ", env!("CARGO_PKG_VERSION")),
        "{out}"
    );
    assert!(
        lines.contains(&format!("wgpu {}", pinned("wgpu")).as_str()),
        "{out}"
    );
    assert!(
        lines.contains(&format!("naga {}", pinned("naga")).as_str()),
        "{out}"
    );
    let commit = lines
        .iter()
        .find_map(|l| l.strip_prefix("commit "))
        .unwrap_or_else(|| panic!("no commit line\n{out}"));
    // A build from a work tree with changes not committed marks its commit `-dirty`.
    let hash = commit.strip_suffix("-dirty").unwrap_or(commit);
    assert!(
        commit == "unknown" || (hash.len() == 12 && hash.chars().all(|c| c.is_ascii_hexdigit())),
        "{out}"
    );
}

/// `--help` lists the exit codes and the environment variables divlab reads.
#[test]
fn help_lists_exit_codes_and_environment() {
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.arg("--help");
    let out = run(cmd);
    out.assert_code(0);
    for needle in [
        "Exit codes",
        "docs/exit-codes.md",
        "  3  the GPU timed out",
        "DIVLAB_OPEN",
        "DIVLAB_RESULTS_DIR",
        "DIVLAB_FILE_DIALOG",
        "WGPU_BACKEND",
        "WGPU_ADAPTER_NAME",
        "bench",
        "completions",
    ] {
        assert!(
            out.stdout.contains(needle),
            "--help lacks `{needle}`\n{out}"
        );
    }
}

/// `divlab` with no command and no display says what to run instead, and exits 2.
#[test]
fn no_command_without_a_display_exits_2() {
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    let out = run(cmd);
    out.assert_code(2);
    assert!(out.stderr.contains("divlab bench"), "{out}");
    assert!(out.stderr.contains("divlab profile"), "{out}");
}

/// `divlab FILE...` names files for the app to open: a `.json` or `.wgsl` reaches the app (here,
/// its no-display error); anything else is a mistyped command, said so; a command after a global
/// option is still the command.
#[test]
fn files_for_the_app_and_mistyped_commands() {
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.args(["results.json", "kernel.wgsl"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY");
    let out = run(cmd);
    out.assert_code(2);
    assert!(out.stderr.contains("no display"), "{out}");
    let mut cmd = divlab(dir.path());
    cmd.arg("bnech");
    let out = run(cmd);
    out.assert_code(2);
    assert!(
        out.stderr.contains("`bnech` is neither a command")
            && out.stderr.contains("did you mean `divlab bench`?"),
        "{out}"
    );
    let mut cmd = divlab(dir.path());
    cmd.args(["--backend", "vulkan", "adapters"]);
    run(cmd).assert_code(0);
}

/// The bash completion script parses (`bash -n`) and knows the commands; the man page is roff
/// with a title, a name and the commands.
#[test]
fn completions_and_man_page() {
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.args(["completions", "bash"]);
    let out = run(cmd);
    out.assert_code(0);
    for command in ["bench", "profile", "compare", "--fail-on-difference"] {
        assert!(out.stdout.contains(command), "completions lack {command}");
    }
    let script = path_in(&dir, "divlab.bash");
    std::fs::write(&script, &out.stdout).expect("writing the script");
    let mut bash = std::process::Command::new("bash");
    bash.arg("-n").arg(&script);
    let checked = run(bash);
    checked.assert_code(0);

    let mut cmd = divlab(dir.path());
    cmd.arg("man");
    let man = run(cmd);
    man.assert_code(0);
    assert!(
        man.stdout.starts_with(".ie") || man.stdout.contains(".TH divlab"),
        "{man}"
    );
    assert!(man.stdout.contains(".SH NAME"), "{man}");
    for command in ["bench", "profile", "compare", "completions"] {
        assert!(man.stdout.contains(command), "the man page lacks {command}");
    }
}

/// The commands `divlab --help` lists, in its order.
pub(crate) fn commands(help: &str) -> Vec<String> {
    let start = help.find("Commands:\n").expect("--help lists commands") + "Commands:\n".len();
    help[start..]
        .lines()
        .take_while(|l| l.starts_with("  "))
        // `  bench, --bench  Run every ...`: the name, then its aliases.
        .filter_map(|l| l.split_whitespace().next())
        .map(|c| c.trim_end_matches(','))
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// docs/cli.md is every command's `--help`, generated from the program: it cannot drift.
/// `UPDATE_DOCS=1 cargo test --test main cli_reference` rewrites it.
#[test]
fn cli_reference_is_current() {
    let dir = temp_dir();
    let help = |args: &[&str]| {
        let mut cmd = divlab(dir.path());
        cmd.args(args).arg("--help");
        let out = run(cmd);
        out.assert_code(0);
        out.stdout
    };
    let top = help(&[]);
    let mut doc = String::from(
        "# Command line reference\n\n\
         Every command's `--help`, generated from divlab itself: a test checks that this page is \
         current, and `UPDATE_DOCS=1 cargo test --test main cli_reference` rewrites it. Exit \
         codes: [exit-codes.md](exit-codes.md).\n",
    );
    let mut section = |title: &str, text: &str| {
        doc.push_str(&format!(
            "\n## `{title}`\n\n```text\n{}\n```\n",
            text.trim_end()
        ));
    };
    section("divlab", &top);
    for command in commands(&top) {
        section(&format!("divlab {command}"), &help(&[&command]));
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md");
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &doc).expect("writing docs/cli.md");
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == doc,
        "docs/cli.md is stale; run `UPDATE_DOCS=1 cargo test --test main cli_reference`"
    );
}

/// `fuzz --fail-on-mismatch` exits 1 exactly when its own table shows a program that did not
/// pass (lavapipe passes these seeds, so 0 here), and the flag changes nothing else.
#[test]
fn fuzz_fail_on_mismatch_follows_the_table() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.args([
        "fuzz",
        "--seeds",
        "3",
        "--size",
        "small",
        "--fail-on-mismatch",
    ]);
    let out = run(cmd);
    let rows: Vec<(u64, u64)> = out
        .stdout
        .lines()
        .filter(|l| {
            ["maximal ", "subgroup ", "workgroup "]
                .iter()
                .any(|s| l.starts_with(s))
        })
        .map(|l| {
            let cols: Vec<u64> = l
                .split_whitespace()
                .skip(1)
                .take(2)
                .map(|c| c.parse().expect("a count"))
                .collect();
            (cols[0], cols[1])
        })
        .collect();
    assert_eq!(rows.len(), 3, "one row per style\n{out}");
    let mismatched = rows.iter().any(|(programs, passed)| passed < programs);
    out.assert_code(i32::from(mismatched));
    if mismatched {
        assert!(out.stderr.contains("--fail-on-mismatch"), "{out}");
    }
}
