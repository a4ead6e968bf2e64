//! Shared helpers: the device, the expected subgroup size, one real bench run, and running the
//! `divlab` binary in a temporary directory.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use divlab::bench::{BenchConfig, run_bench};
use divlab::experiments::{Lab, RunConfig};
use divlab::gpu::{AdapterSelector, GpuContext};
use divlab::profile::report::{BranchProfile, LineProfile, Profile};
use divlab::report::{ExperimentStatus, ResultDocument};

/// How to get an adapter, for every failure that comes from not having one.
const NO_ADAPTER_HELP: &str = "divlab's integration tests run real kernels and need a GPU \
     adapter with subgroups. On Linux without a GPU, run `scripts/setup` (it installs Mesa's \
     lavapipe, `mesa-vulkan-drivers`) and set XDG_RUNTIME_DIR (e.g. /tmp)";

/// A device on the default adapter. Panics with install instructions when there is none.
pub fn gpu() -> GpuContext {
    GpuContext::new(&AdapterSelector::default())
        .unwrap_or_else(|e| panic!("no usable GPU device: {e}\n{NO_ADAPTER_HELP}"))
}

/// The subgroup size the default adapter must show: `DIVLAB_EXPECT_SUBGROUP_SIZE`, else 8.
pub fn expected_subgroup_size() -> u32 {
    match std::env::var("DIVLAB_EXPECT_SUBGROUP_SIZE") {
        Err(std::env::VarError::NotPresent) => 8,
        Ok(s) => s.trim().parse().unwrap_or_else(|_| {
            panic!("DIVLAB_EXPECT_SUBGROUP_SIZE={s:?} is not a number; use e.g. 8 or 4")
        }),
        Err(e) => panic!("DIVLAB_EXPECT_SUBGROUP_SIZE is unreadable: {e}"),
    }
}

/// One quick `subgroup.size` bench run on the default adapter, shared by the report tests so
/// they read and damage a real document without paying for the run each time.
pub fn bench_doc() -> &'static ResultDocument {
    static DOC: OnceLock<ResultDocument> = OnceLock::new();
    DOC.get_or_init(|| {
        let lab = Lab::new(gpu());
        let config = BenchConfig {
            run: RunConfig {
                quick: true,
                reps: None,
                fuzz_seeds: None,
            },
            only: Some("subgroup.size".to_owned()),
            ids: None,
        };
        let doc = run_bench(&lab, &config, &|_| {});
        let ids: Vec<&str> = doc.experiments.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            ["subgroup.size"],
            "--only subgroup.size ran these experiments"
        );
        // The report tests damage this document; it must be a real one, with every part filled.
        let e = &doc.experiments[0];
        assert!(
            e.status == ExperimentStatus::Ok && !e.metrics.is_empty() && !e.verdicts.is_empty(),
            "subgroup.size on `{}` gave no real result ({:?}: {})\n{NO_ADAPTER_HELP}",
            doc.adapter.name,
            e.status,
            e.status_detail
        );
        doc
    })
}

/// A finished run of the `divlab` binary.
pub struct Run {
    /// The exit code (`None` when a signal ended it).
    pub code: Option<i32>,
    /// Everything it printed on stdout.
    pub stdout: String,
    /// Everything it printed on stderr.
    pub stderr: String,
    /// What was run, for messages.
    pub what: String,
}

impl Run {
    /// Panics, showing the whole run, unless it exited with `code`.
    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(self.code, Some(code), "wrong exit code\n{self}");
        assert!(!self.stderr.contains("panicked"), "divlab panicked\n{self}");
        self
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "$ {}\nexit code: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.what, self.code, self.stdout, self.stderr
        )
    }
}

/// Longest a single CLI run may take before the test kills it: a hang fails, it never blocks CI.
const CLI_TIMEOUT: Duration = Duration::from_secs(300);

/// The `divlab` binary Cargo built for these tests, in `dir`, without the environment variables
/// that would pick another adapter than the one the test expects.
pub fn divlab(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_divlab"));
    cmd.current_dir(dir)
        .env_remove("WGPU_BACKEND")
        .env_remove("WGPU_ADAPTER_NAME")
        .env("NO_COLOR", "1");
    cmd
}

/// Runs `cmd` to completion (or kills it after [`CLI_TIMEOUT`]) and captures its output.
pub fn run(cmd: Command) -> Run {
    run_within(cmd, CLI_TIMEOUT)
}

/// Runs `cmd` to completion and captures its output; fails the test, having killed it, when it
/// runs longer than `bound` (a hostile input's test: a hang fails fast).
pub fn run_within(mut cmd: Command, bound: Duration) -> Run {
    let what = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    // Drain both pipes on threads so a chatty child never blocks on a full pipe.
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout is piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr is piped")));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for divlab") {
            break status;
        }
        if start.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{what} did not finish within {bound:?}; killed it. stderr so far:\n{}",
                stderr.join().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code(),
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
        what,
    }
}

/// A fresh temporary directory for one test.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("divlab-test-")
        .tempdir()
        .expect("cannot create a temporary directory")
}

/// `dir/name`.
pub fn path_in(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

/// Tests share the machine's cores with lavapipe (two in CI). Timing tests hold this lock
/// exclusively so no other test's work (kernels, or CPU-heavy checks such as the uniformity
/// corpus) runs beside them; every other test that does real work holds it shared.
static GPU_LOCK: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Shared access to the device, for tests that run kernels but time nothing.
pub fn gpu_shared() -> std::sync::RwLockReadGuard<'static, ()> {
    GPU_LOCK.read().unwrap_or_else(|e| e.into_inner())
}

/// Sole access to the device, for tests whose assertions are timing ratios.
pub fn gpu_exclusive() -> std::sync::RwLockWriteGuard<'static, ()> {
    GPU_LOCK.write().unwrap_or_else(|e| e.into_inner())
}

/// Profiles `source`, named `file`, on the default adapter with at most `reps` timed runs and
/// the request `configure` sets up.
pub fn profiled_as(
    file: &str,
    source: &str,
    reps: usize,
    configure: impl FnOnce(&mut divlab::profile::run::Request),
) -> divlab::profile::run::Finished {
    let _gpu = gpu_shared();
    let lab = Lab::new(gpu());
    let mut request = divlab::profile::run::Request::new(file, source);
    request.reps = reps;
    configure(&mut request);
    divlab::profile::run::profile(&lab, &request).unwrap_or_else(|e| panic!("{e}"))
}

/// The 1-based line of the only line of `source` containing `marker`.
pub fn line_of(source: &str, marker: &str) -> u32 {
    let lines: Vec<u32> = (1..)
        .zip(source.lines())
        .filter(|(_, l)| l.contains(marker))
        .map(|(n, _)| n)
        .collect();
    assert_eq!(lines.len(), 1, "`{marker}` must mark exactly one line");
    lines[0]
}

/// The profile of line `n`.
pub fn line(p: &Profile, n: u32) -> &LineProfile {
    p.lines
        .iter()
        .find(|l| l.line == n)
        .unwrap_or_else(|| panic!("no profile for line {n}: {:#?}", p.lines))
}

/// The `kind` branch (`if`, `switch`, `loop`) at line `n`.
pub fn branch<'a>(p: &'a Profile, n: u32, kind: &str) -> &'a BranchProfile {
    p.branches
        .iter()
        .find(|b| b.line == n && b.kind == kind)
        .unwrap_or_else(|| panic!("no {kind} at line {n}: {:#?}", p.branches))
}

/// The `divlab profile` arguments of a test kernel's first line, `// divlab-profile: ARGS`
/// (tests/kernels/profile/README.md), or `None` when it has no such line.
pub fn header_args(source: &str) -> Option<Vec<String>> {
    let first = source.lines().next().unwrap_or_default();
    first.starts_with("// divlab-profile:").then_some(())?;
    divlab::profile::header::header_runs(source)
        .into_iter()
        .next()
}
