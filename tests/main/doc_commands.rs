//! Every command in README.md and docs/ runs as written, on the default adapter (lavapipe in
//! CI): the guide once held `divlab uniformity shaders/ src/gpu/`, which failed.
//!
//! What counts as a command, in fenced code only: every line of a ```sh block (a `\` joins the
//! next line), and every `$ ...` line in any block (docs/cli.md holds each command's `--help`,
//! so the EXAMPLES of every subcommand run too). In a block, `$ cd DIR` moves the commands
//! after it, and `$ echo $?` followed by a number is the exit code the command before it must
//! give. Otherwise a command must exit 0, or 1 (a result to act on: a finding, a verdict, a
//! difference); never 2 (usage), 3 (timeout), 4 (a bug), or a panic.
//!
//! The commands run with `divlab` on PATH in a scratch copy of what they read (assets/,
//! shaders/, tests/fixtures, tests/uniformity, src/gpu), so what they write stays there. Three
//! tables say where a run departs from the text, each entry with its reason: PLACEHOLDERS
//! (names that stand for the user's files), SKIP (commands that are not divlab's: builds and
//! setup, which CI runs itself), and the bench's cost rule in [`for_ci`].

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::util;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Names in the docs that stand for the user's own files, and the repository files that stand
/// in for them.
const PLACEHOLDERS: &[(&str, &str)] = &[
    ("mine.wgsl", "assets/kernels/lane_bits_switch.wgsl"),
    ("shader.wgsl", "tests/fixtures/lint/subgroup_warning.wgsl"),
    ("a.json", "assets/reference/lavapipe-sg8.json"),
    ("b.json", "assets/reference/lavapipe-sg4.json"),
    ("main.json", "assets/reference/lavapipe-sg8.json"),
    ("pr.json", "assets/reference/lavapipe-sg4.json"),
    ("reference.json", "assets/reference/lavapipe-sg8.json"),
];

/// Commands that are not run, and why. A stale entry (no longer in the docs) fails the test.
const SKIP: &[(&str, &str)] = &[
    (
        "scripts/setup",
        "CI runs it itself, before the tests (.ci/run)",
    ),
    (
        "cargo install --locked --path .         # builds a release divlab into ~/.cargo/bin",
        "a release build of these sources (minutes); CI builds them itself",
    ),
    (
        "scripts/setup && cargo run --release -- --bench",
        "a release build and the full bench; the bench's commands run below, quick",
    ),
    (
        "scripts/setup && scripts/setup-tests && cargo test",
        "the command that runs this test",
    ),
];

/// How long one command may run before the test fails it.
const BOUND: Duration = Duration::from_secs(240);

/// A command as the docs give it.
#[derive(Clone, Debug)]
struct DocCommand {
    /// `file:line`, for messages.
    at: String,
    /// The directory it runs in, relative to the scratch copy (from `$ cd`).
    cwd: PathBuf,
    text: String,
    /// The exit code the docs show (`$ echo $?`), if they show one.
    expected: Option<i32>,
}

/// The commands of one Markdown file, in order.
fn extract(name: &str, text: &str) -> Vec<DocCommand> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<DocCommand> = Vec::new();
    let mut fence: Option<&str> = None;
    let mut cwd = PathBuf::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        i += 1;
        if let Some(info) = line.strip_prefix("```") {
            fence = if fence.is_some() { None } else { Some(info) };
            cwd = PathBuf::new();
            continue;
        }
        let Some(info) = fence else { continue };
        let command = match line.strip_prefix("$ ") {
            Some(c) => c,
            None if info == "sh" && !line.is_empty() && !line.starts_with('#') => line,
            None => continue,
        };
        let mut command = command.to_owned();
        while command.ends_with('\\') && i < lines.len() {
            command.pop();
            command = format!("{} {}", command.trim_end(), lines[i].trim());
            i += 1;
        }
        if let Some(dir) = command.strip_prefix("cd ") {
            cwd.push(dir.trim());
        } else if command == "echo $?" {
            let code = lines.get(i).and_then(|l| l.trim().parse().ok());
            if let (Some(last), Some(code)) = (out.last_mut(), code) {
                last.expected = Some(code);
            }
        } else {
            out.push(DocCommand {
                at: format!("{name}:{i}"),
                cwd: cwd.clone(),
                text: command,
                expected: None,
            });
        }
    }
    out
}

/// The command as the test runs it: placeholders replaced, and every bench cut to
/// `--quick --only subgroup.size --reps 3` (its `--quick`, `--only` and `--reps` dropped): the
/// full bench takes minutes on two cores, and what the docs show of it (options, documents,
/// `--json -` into jq) is the same on one experiment. docs/bench.md's times are measured, not
/// run here.
fn for_ci(text: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut tokens = text.split(' ').peekable();
    let mut in_bench = false;
    while let Some(token) = tokens.next() {
        if in_bench && ["--only", "--reps"].contains(&token) {
            tokens.next();
            continue;
        }
        if in_bench && token == "--quick" {
            continue;
        }
        if ["|", "&&", ";", ">"].contains(&token) {
            in_bench = false;
        }
        let replaced = PLACEHOLDERS
            .iter()
            .find(|(name, _)| *name == token)
            .map_or(token, |(_, file)| *file);
        words.push(replaced.to_owned());
        if (token == "bench" || token == "--bench") && words.len() >= 2 {
            words.push("--quick --only subgroup.size --reps 3".to_owned());
            in_bench = true;
        }
    }
    words.join(" ")
}

/// A scratch copy of what the commands read.
fn scratch() -> tempfile::TempDir {
    let dir = util::temp_dir();
    for part in [
        "assets",
        "shaders",
        "tests/fixtures",
        "tests/uniformity",
        "src/gpu",
    ] {
        copy_dir(&root().join(part), &dir.path().join(part));
    }
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("making the scratch copy");
    for entry in std::fs::read_dir(from).expect("reading the repository") {
        let path = entry.expect("an entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copying into the scratch copy");
        }
    }
}

#[test]
fn extraction_follows_cd_echo_and_continuations() {
    let text = "```sh\ndivlab a \\\n  --b   # note\n# comment\n```\n$ divlab outside\n```\n$ cd x/y\n$ divlab c\nout\n$ echo $?\n1\n```\n";
    let got = extract("t.md", text);
    let summary: Vec<(String, PathBuf, Option<i32>)> = got
        .iter()
        .map(|c| (c.text.clone(), c.cwd.clone(), c.expected))
        .collect();
    assert_eq!(
        summary,
        [
            ("divlab a --b   # note".to_owned(), PathBuf::new(), None),
            ("divlab c".to_owned(), PathBuf::from("x/y"), Some(1)),
        ]
    );
    assert_eq!(
        for_ci("divlab bench --only divergence --reps 25 --json - | jq .adapter"),
        "divlab bench --quick --only subgroup.size --reps 3 --json - | jq .adapter"
    );
    assert_eq!(
        for_ci("divlab compare a.json b.json"),
        "divlab compare assets/reference/lavapipe-sg8.json assets/reference/lavapipe-sg4.json"
    );
}

#[test]
fn every_documented_command_runs_as_written() {
    let _gpu = util::gpu_shared();
    let dir = scratch();
    let bin = Path::new(env!("CARGO_BIN_EXE_divlab"))
        .parent()
        .expect("the binary's directory");
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let mut skipped: Vec<&str> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut ran = 0;
    for file in crate::readme::markdown_files() {
        let name = file
            .strip_prefix(root())
            .unwrap_or(&file)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&file).expect("a Markdown file");
        for command in extract(&name, &text) {
            if let Some((skip, _)) = SKIP.iter().find(|(s, _)| *s == command.text) {
                skipped.push(skip);
                continue;
            }
            let script = for_ci(&command.text);
            if script.contains("| jq ") && !crate::peers::on_path("jq") {
                continue;
            }
            let mut cmd = Command::new("bash");
            cmd.args(["-o", "pipefail", "-c", &script])
                .current_dir(dir.path().join(&command.cwd))
                .env("PATH", &path)
                .env_remove("WGPU_BACKEND")
                .env_remove("WGPU_ADAPTER_NAME")
                .env("NO_COLOR", "1");
            let run = util::run_within(cmd, BOUND);
            ran += 1;
            let ok = match command.expected {
                Some(code) => run.code == Some(code),
                None => matches!(run.code, Some(0 | 1)),
            };
            if !ok || run.stderr.contains("panicked") {
                failures.push(format!(
                    "{} (expected {}):\n{run}",
                    command.at,
                    command
                        .expected
                        .map_or("exit 0 or 1".to_owned(), |c| format!("exit {c}"))
                ));
            }
        }
    }
    for (skip, why) in SKIP {
        assert!(
            skipped.contains(skip),
            "SKIP lists `{skip}` ({why}), which no document has any more"
        );
    }
    assert!(ran > 30, "only {ran} commands found in README.md and docs/");
    assert!(
        failures.is_empty(),
        "{} of {ran} documented commands failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
