//! The profiler's invariant: Σ active lanes of a line, counted with subgroups (lavapipe's
//! Vulkan), equals the line's executions where every invocation counts its own (executions
//! count invocations), for every line of every kernel: on GL (llvmpipe, no subgroups), for the
//! kernels that run without subgroup operations, and on the same Vulkan adapter with
//! `--counts invocations`, for all of them. The kernels are the app's examples with their
//! settings, and every kernel in `tests/kernels/profile/` with the arguments of its
//! `// divlab-profile: ARGS` header (tests/kernels/profile/README.md). Each kernel runs through
//! the `divlab` binary, so its header is read by the CLI's own parser.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use divlab::app::playground::examples::EXAMPLES;

use crate::util::{self, divlab, path_in, run, temp_dir};

/// The header every profile test kernel starts with.
const HEADER: &str = "// divlab-profile:";

/// One kernel to check: a name for messages, its file, and its `divlab profile` arguments.
struct Case {
    name: String,
    file: PathBuf,
    args: Vec<String>,
}

/// The arguments of a profile test kernel's first line.
fn header_args(path: &Path, source: &str) -> Vec<String> {
    util::header_args(source).unwrap_or_else(|| {
        panic!(
            "{} must start with `{HEADER} ARGS` (tests/kernels/profile/README.md); it starts \
             with `{}`",
            path.display(),
            source.lines().next().unwrap_or_default()
        )
    })
}

/// Every kernel in tests/kernels/profile, read now.
fn kernel_files() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/profile");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "wgsl"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let source = std::fs::read_to_string(&file).expect("a kernel file");
            Case {
                name: file.file_name().unwrap().to_string_lossy().into_owned(),
                args: header_args(&file, &source),
                file,
            }
        })
        .collect()
}

/// The app's examples, written to `dir`, with their settings as `divlab profile` arguments.
fn examples(dir: &Path) -> Vec<Case> {
    EXAMPLES
        .iter()
        .enumerate()
        .map(|(i, example)| {
            let file = dir.join(format!("example{i}.wgsl"));
            std::fs::write(&file, example.source()).expect("writing an example");
            let s = example.settings();
            let [x, y, z] = s.workgroups;
            let mut args = vec!["--dispatch".to_owned(), format!("{x},{y},{z}")];
            for (flag, lines) in [
                ("--buffer", &s.buffers),
                ("--len", &s.lens),
                ("--override", &s.overrides),
            ] {
                for line in lines.lines().map(str::trim).filter(|l| !l.is_empty()) {
                    args.extend([flag.to_owned(), line.to_owned()]);
                }
            }
            if !s.entry.trim().is_empty() {
                args.extend(["--entry".to_owned(), s.entry.trim().to_owned()]);
            }
            Case {
                name: format!("example `{}`", example.name),
                file,
                args,
            }
        })
        .collect()
}

/// The subgroup operation a kernel uses, if any: a subgroup builtin call or input.
fn subgroup_use(case: &Case) -> Option<String> {
    let source = std::fs::read_to_string(&case.file).expect("a kernel file");
    let module = divlab::shaders::check_wgsl(&case.name, &source)
        .unwrap_or_else(|e| panic!("{} does not parse: {e}", case.name));
    let inputs = module.entry_points.iter().flat_map(|ep| {
        let args = &ep.function.arguments;
        args.iter().flat_map(|a| {
            let members = match module.types[a.ty].inner {
                naga::TypeInner::Struct { ref members, .. } => {
                    members.iter().map(|m| m.binding.clone()).collect()
                }
                _ => vec![a.binding.clone()],
            };
            members.into_iter().flatten()
        })
    });
    for binding in inputs {
        use naga::BuiltIn as B;
        if let naga::Binding::BuiltIn(
            b @ (B::SubgroupSize | B::SubgroupInvocationId | B::SubgroupId | B::NumSubgroups),
        ) = binding
        {
            return Some(format!("the input {b:?}"));
        }
    }
    let bodies = module
        .functions
        .iter()
        .map(|(_, f)| f)
        .chain(module.entry_points.iter().map(|ep| &ep.function));
    bodies.into_iter().find_map(|f| subgroup_statement(&f.body))
}

fn subgroup_statement(block: &naga::Block) -> Option<String> {
    use naga::Statement as S;
    block.iter().find_map(|s| match s {
        S::SubgroupBallot { .. } => Some("subgroupBallot".to_owned()),
        S::SubgroupCollectiveOperation { op, .. } => Some(format!("a subgroup {op:?}")),
        S::SubgroupGather { mode, .. } => Some(format!("a subgroup gather {mode:?}")),
        S::Block(b) => subgroup_statement(b),
        S::If { accept, reject, .. } => {
            subgroup_statement(accept).or_else(|| subgroup_statement(reject))
        }
        S::Switch { cases, .. } => cases.iter().find_map(|c| subgroup_statement(&c.body)),
        S::Loop {
            body, continuing, ..
        } => subgroup_statement(body).or_else(|| subgroup_statement(continuing)),
        _ => None,
    })
}

/// What GL prints for a kernel that needs a feature its adapter lacks: divlab's
/// `Error::Unsupported` (immediates; a depth texture's upload on llvmpipe's GL).
const UNSUPPORTED: [&str; 1] = ["which this adapter does not support"];

/// How a kernel is counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Way {
    /// On Vulkan, with subgroup operations: Σ active lanes per line.
    Subgroups,
    /// On Vulkan with `--counts invocations`.
    Invocations,
    /// On GL, which has no subgroups.
    Gl,
}

impl Way {
    fn args(self) -> [&'static str; 4] {
        match self {
            Way::Subgroups => ["--backend", "vulkan", "--counts", "subgroups"],
            Way::Invocations => ["--backend", "vulkan", "--counts", "invocations"],
            Way::Gl => ["--backend", "gl", "--counts", "subgroups"],
        }
    }
}

/// `case` profiled one way: the exit code and the profile, or `None` with the reason where
/// the adapter lacks a feature the kernel needs.
fn profile_on(case: &Case, way: Way, out: &Path) -> Option<(i32, serde_json::Value)> {
    let json = out.join(format!(
        "{}-{way:?}.json",
        case.name.replace(['`', ' '], "_")
    ));
    let [backend_flag, backend, counts_flag, counts] = way.args();
    // `--lanes` records ballots, which only the counts with subgroups make.
    let mut args = case.args.clone();
    if let Some(at) = args.iter().position(|a| a == "--lanes")
        && way != Way::Subgroups
    {
        args.drain(at..at + 2);
    }
    let mut cmd = divlab(Path::new(env!("CARGO_MANIFEST_DIR")));
    cmd.args([backend_flag, backend, "profile"])
        .arg(&case.file)
        .args(&args)
        .args([counts_flag, counts, "--reps", "1", "--json"])
        .arg(&json);
    let r = run(cmd);
    let code = r.code.unwrap_or(-1);
    assert!(!r.stderr.contains("panicked"), "{r}");
    if let Some(why) = r
        .stderr
        .lines()
        .find(|l| UNSUPPORTED.iter().any(|u| l.contains(u)))
        .filter(|_| code == 2 && way == Way::Gl)
    {
        println!("skipped {} on GL: {}", case.name, why.trim());
        return None;
    }
    assert!(
        code == 0 || code == 1,
        "{} {way:?} did not run (a kernel the invariant test checks must run to its end or \
         to the loop cap)\n{r}",
        case.name
    );
    let text = std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("no --json: {e}\n{r}"));
    let profile: serde_json::Value = serde_json::from_str(&text).expect("the profile parses");
    // The entry point ran once per subgroup (per invocation on GL) of the dispatch.
    assert!(
        !text.contains("the driver ran"),
        "{} {way:?}: {}",
        case.name,
        profile["notes"]
    );
    Some((code, profile))
}

/// Per line: (executions, active lanes).
fn per_line(profile: &serde_json::Value) -> BTreeMap<u64, (u64, Option<u64>)> {
    profile["lines"]
        .as_array()
        .expect("lines[]")
        .iter()
        .map(|l| {
            (
                l["line"].as_u64().expect("line"),
                (
                    l["executions"].as_u64().expect("executions"),
                    l["active_lanes"].as_u64(),
                ),
            )
        })
        .collect()
}

/// Σ active lanes per line counted with subgroups (`lanes`) == executions per line counted per
/// invocation (`invocations`, the other `way`), with the same lines and exit code.
fn assert_alike(
    case: &Case,
    way: Way,
    lanes: &(i32, serde_json::Value),
    invocations: &(i32, serde_json::Value),
) -> u64 {
    let ((lanes_code, lanes), (code, invocations)) = (lanes, invocations);
    assert!(
        lanes["subgroup_size"].is_u64() && invocations["subgroup_size"].is_null(),
        "{}: Subgroups must count with subgroups and {way:?} without",
        case.name
    );
    assert_eq!(lanes_code, code, "{}: exit codes differ {way:?}", case.name);
    let (lanes, invocations) = (per_line(lanes), per_line(invocations));
    assert_eq!(
        lanes.keys().collect::<Vec<_>>(),
        invocations.keys().collect::<Vec<_>>(),
        "{}: Subgroups and {way:?} profile different lines",
        case.name
    );
    for (line, &(executions, active)) in &lanes {
        let active = active.unwrap_or_else(|| {
            assert_eq!(
                executions, 0,
                "{} line {line}: executions without lanes",
                case.name
            );
            0
        });
        let (counted, _) = invocations[line];
        assert_eq!(
            active, counted,
            "{} line {line}: Σ active lanes with subgroups {active}, executions {way:?} \
             {counted}",
            case.name
        );
    }
    invocations.values().map(|&(e, _)| e).sum()
}

/// Σ active lanes per line with subgroups == executions per line with `--counts invocations`,
/// for every kernel, and == executions per line on GL, for every kernel without subgroup
/// operations.
#[test]
fn active_lanes_equal_executions_counted_per_invocation_line_by_line() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let examples_dir = path_in(&dir, "examples");
    std::fs::create_dir(&examples_dir).unwrap();
    let mut cases = examples(&examples_dir);
    let files = kernel_files();
    let own = [
        "uniform_bound.wgsl",
        "element_bound.wgsl",
        "counted_rows.wgsl",
    ];
    for name in own {
        assert!(
            files.iter().any(|c| c.name == name),
            "tests/kernels/profile/{name} is missing"
        );
    }
    cases.extend(files);
    let (mut on_gl, mut with_subgroup_ops) = (Vec::new(), Vec::new());
    for case in &cases {
        let lanes = profile_on(case, Way::Subgroups, dir.path())
            .unwrap_or_else(|| panic!("{}: lavapipe lacks a feature the kernel needs", case.name));
        let invocations = profile_on(case, Way::Invocations, dir.path())
            .unwrap_or_else(|| panic!("{}: lavapipe lacks a feature the kernel needs", case.name));
        let total = assert_alike(case, Way::Invocations, &lanes, &invocations);
        println!(
            "checked {} with --counts invocations: {total} invocation executions in all (exit {})",
            case.name, lanes.0
        );
        if let Some(what) = subgroup_use(case) {
            println!("not on GL {}: it uses {what}", case.name);
            with_subgroup_ops.push(case.name.clone());
            continue;
        }
        let Some(gl) = profile_on(case, Way::Gl, dir.path()) else {
            continue;
        };
        assert_eq!(gl.1["adapter"]["backend"], "gl", "{}", case.name);
        assert_alike(case, Way::Gl, &lanes, &gl);
        on_gl.push(case.name.clone());
    }
    for name in own {
        assert!(
            on_gl.iter().any(|c| c == name),
            "{name} uses no subgroup operations and must be checked on GL: {on_gl:?}"
        );
    }
    let examples_on_gl = on_gl.iter().filter(|c| c.starts_with("example")).count();
    assert!(
        examples_on_gl >= 3,
        "only {examples_on_gl} examples ran without subgroup operations: {on_gl:?}"
    );
    // The kernels' own subgroup operations still run under --counts invocations.
    assert!(
        with_subgroup_ops.len() >= 3,
        "only {} kernels with subgroup operations were checked: {with_subgroup_ops:?}",
        with_subgroup_ops.len()
    );
}
