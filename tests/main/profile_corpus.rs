//! `divlab profile` on the corpus of kernels written in the patterns of public compute shaders
//! (tests/kernels/profile-corpus, its README says how each is run): every run of every file ends
//! with exit 0, or 1 with the cap message, or, for a file marked `// divlab-profile-expect:
//! exit 2`, a located error; none says "divlab bug" or panics, and each that ends says whether
//! its outputs are the kernel alone's.

use std::path::{Path, PathBuf};

use crate::util;
use crate::util::{divlab, run};

/// Each corpus file with its runs (the arguments of each `// divlab-profile:` line) and the exit
/// code its `// divlab-profile-expect:` line gives, if any.
fn corpus() -> Vec<(PathBuf, Vec<Vec<String>>, Option<i32>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/profile-corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut runs = divlab::profile::header::header_runs(&text);
            let expect = (text.lines().take_while(|l| l.starts_with("//")))
                .find_map(|l| l.strip_prefix("// divlab-profile-expect: exit "))
                .map(|code| code.trim().parse().unwrap());
            if runs.is_empty() {
                runs.push(Vec::new());
            }
            (path, runs, expect)
        })
        .collect()
}

#[test]
fn every_corpus_kernel_runs_to_its_end_the_cap_or_a_located_error() {
    let _gpu = util::gpu_shared();
    let corpus = corpus();
    assert!(corpus.len() >= 50, "the corpus has {} files", corpus.len());
    let dir = util::temp_dir();
    let mut problems = Vec::new();
    let (mut ran, mut capped, mut refused) = (0, 0, 0);
    for (path, runs, expect) in &corpus {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for args in runs {
            let mut cmd = divlab(dir.path());
            cmd.arg("profile")
                .arg(path)
                .args(args)
                .args(["--reps", "1", "--time-budget", "0.05"]);
            let out = run(cmd);
            let code = out.code.unwrap_or(-1);
            let what = format!("{name} {}", args.join(" "));
            let wrong = match (code, expect) {
                _ if out.stderr.contains("divlab bug") => Some("says \"divlab bug\""),
                _ if out.stderr.contains("panicked") => Some("panicked"),
                // A run that ends is timed, and its outputs compared with the kernel alone.
                (0, None | Some(0)) => (!out.stdout.contains("\noutputs: ")
                    && !out.stderr.contains("\noutputs: "))
                .then_some("no `outputs:` line"),
                (1, None | Some(1)) if out.stderr.contains("hit the loop cap") => None,
                (1, _) => Some("exit 1 without the cap message"),
                // A located error (`FILE:LINE:COL: error`, or `line N of FILE`), or, for valid
                // WGSL that needs a value (an `override` without a default), what to pass.
                (2, Some(2)) => {
                    let at_line = out.stderr.contains(&format!("{name}:"))
                        && !out.stderr.contains(&format!("{name}:0:0"));
                    let located = at_line || out.stderr.contains("line ");
                    (!located && !out.stderr.contains("pass --override"))
                        .then_some("exit 2 without a location")
                }
                _ => Some("an unexpected exit code"),
            };
            match code {
                0 => ran += 1,
                1 => capped += 1,
                _ => refused += 1,
            }
            if let Some(why) = wrong {
                problems.push(format!("{what}: {why}\n{out}"));
            }
        }
    }
    println!("corpus: {ran} ran, {capped} hit the cap, {refused} refused");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
