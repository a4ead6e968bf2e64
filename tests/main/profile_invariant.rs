//! The profiler's invariant across backends: Σ active lanes of a line on Vulkan (lavapipe, with
//! subgroups) equals the line's executions on GL (llvmpipe, no subgroups, where executions count
//! invocations), for every line of every kernel that runs without subgroup operations: the app's
//! examples with their settings, and every kernel in `tests/kernels/profile/` with the
//! arguments of its `// divlab-profile: ARGS` header (tests/kernels/profile/README.md). Each
//! kernel runs through the `divlab` binary, so its header is read by the CLI's own parser.

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

/// One backend's profile of `case`: the exit code and the profile, or `None` with the reason
/// where the adapter lacks a feature the kernel needs.
fn profile_on(case: &Case, backend: &str, out: &Path) -> Option<(i32, serde_json::Value)> {
    let json = out.join(format!(
        "{}-{backend}.json",
        case.name.replace(['`', ' '], "_")
    ));
    let mut cmd = divlab(Path::new(env!("CARGO_MANIFEST_DIR")));
    cmd.args(["--backend", backend, "profile"])
        .arg(&case.file)
        .args(&case.args)
        .args(["--reps", "1", "--json"])
        .arg(&json);
    let r = run(cmd);
    let code = r.code.unwrap_or(-1);
    assert!(!r.stderr.contains("panicked"), "{r}");
    if let Some(why) = r
        .stderr
        .lines()
        .find(|l| UNSUPPORTED.iter().any(|u| l.contains(u)))
        .filter(|_| code == 2 && backend == "gl")
    {
        println!("skipped {} on GL: {}", case.name, why.trim());
        return None;
    }
    assert!(
        code == 0 || code == 1,
        "{} on {backend} did not run (a kernel the invariant test checks must run to its end \
         or to the loop cap)\n{r}",
        case.name
    );
    let text = std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("no --json: {e}\n{r}"));
    let profile: serde_json::Value = serde_json::from_str(&text).expect("the profile parses");
    // The entry point ran once per subgroup (per invocation on GL) of the dispatch.
    assert!(
        !text.contains("the driver ran"),
        "{} on {backend}: {}",
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

/// Σ active lanes per line on Vulkan == executions per line on GL, for every kernel without
/// subgroup operations.
#[test]
fn active_lanes_on_vulkan_equal_executions_on_gl_line_by_line() {
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
    let mut checked = Vec::new();
    for case in &cases {
        if let Some(what) = subgroup_use(case) {
            println!("skipped {}: it uses {what}", case.name);
            continue;
        }
        let (vk_code, vk) = profile_on(case, "vulkan", dir.path())
            .unwrap_or_else(|| panic!("{}: lavapipe lacks a feature the kernel needs", case.name));
        let Some((gl_code, gl)) = profile_on(case, "gl", dir.path()) else {
            continue;
        };
        assert_eq!(vk["adapter"]["backend"], "vulkan", "{}", case.name);
        assert_eq!(gl["adapter"]["backend"], "gl", "{}", case.name);
        assert!(
            vk["subgroup_size"].is_u64() && gl["subgroup_size"].is_null(),
            "{}: Vulkan must count with subgroups and GL without",
            case.name
        );
        assert_eq!(vk_code, gl_code, "{}: exit codes differ", case.name);
        let (vk, gl) = (per_line(&vk), per_line(&gl));
        assert_eq!(
            vk.keys().collect::<Vec<_>>(),
            gl.keys().collect::<Vec<_>>(),
            "{}: the backends profile different lines",
            case.name
        );
        for (line, &(executions, lanes)) in &vk {
            let lanes = lanes.unwrap_or_else(|| {
                assert_eq!(
                    executions, 0,
                    "{} line {line}: executions without lanes",
                    case.name
                );
                0
            });
            let (gl_executions, _) = gl[line];
            assert_eq!(
                lanes, gl_executions,
                "{} line {line}: Σ active lanes on Vulkan {lanes}, executions on GL \
                 {gl_executions}",
                case.name
            );
        }
        let total: u64 = gl.values().map(|&(e, _)| e).sum();
        println!(
            "checked {}: {} lines, {total} invocation executions in all (exit {vk_code})",
            case.name,
            gl.len()
        );
        checked.push(case.name.clone());
    }
    for name in own {
        assert!(
            checked.iter().any(|c| c == name),
            "{name} uses no subgroup operations and must be checked: {checked:?}"
        );
    }
    let examples_checked = checked.iter().filter(|c| c.starts_with("example")).count();
    assert!(
        examples_checked >= 3,
        "only {examples_checked} examples ran without subgroup operations: {checked:?}"
    );
}
