//! Every subcommand's examples: `--help` ends with them (EXAMPLES in the man pages). Each one
//! runs as written from the repository's root on lavapipe: they name files the repository has,
//! and tests/main/doc_commands.rs runs them through docs/cli.md, which holds every `--help`.

use clap::Command;

/// One example: what it does, then the command line.
pub(crate) struct Example {
    pub(crate) what: &'static str,
    pub(crate) command: &'static str,
}

const fn ex(what: &'static str, command: &'static str) -> Example {
    Example { what, command }
}

/// The examples of each subcommand, by its name.
pub(crate) const EXAMPLES: &[(&str, &[Example])] = &[
    (
        "bench",
        &[
            ex(
                "One experiment with fewer repetitions:",
                "divlab bench --quick --only subgroup.size",
            ),
            ex(
                "Write the result document and its CSV for `compare` and notebooks:",
                "divlab bench --quick --only subgroup --json result.json --csv result.csv",
            ),
            ex(
                "The whole bench (minutes on a CPU adapter; docs/bench.md):",
                "divlab bench",
            ),
        ],
    ),
    (
        "adapters",
        &[
            ex(
                "Every adapter, with the full driver string:",
                "divlab adapters",
            ),
            ex(
                "The same as JSON, with limits and features:",
                "divlab adapters --json -",
            ),
            ex("Only GL adapters:", "divlab --backend gl adapters"),
        ],
    ),
    (
        "fuzz",
        &[
            ex(
                "Ten seeds, maximal reconvergence only:",
                "divlab fuzz --seeds 10 --style maximal",
            ),
            ex(
                "A CI gate that keeps shrunk reproducers and a JSON record:",
                "divlab fuzz --seeds 20 --size small --out repro --json fuzz.json --fail-on-mismatch",
            ),
        ],
    ),
    (
        "table",
        &[ex(
            "The divergence study's figures from the reference results:",
            "divlab table assets/reference/lavapipe-sg8.json assets/reference/nvidia-h200.json",
        )],
    ),
    (
        "compare",
        &[
            ex(
                "Two devices side by side:",
                "divlab compare assets/reference/lavapipe-sg8.json assets/reference/nvidia-h200.json",
            ),
            ex(
                "Against a baseline, as Markdown:",
                "divlab compare --baseline assets/reference/lavapipe-sg8.json assets/reference/lavapipe-sg4.json --markdown compare.md",
            ),
        ],
    ),
    (
        "report",
        &[ex(
            "One HTML page over every reference result:",
            "divlab report assets/reference/lavapipe-sg8.json assets/reference/nvidia-h200.json -o report.html",
        )],
    ),
    (
        "profile",
        &[
            ex(
                "Per line, how many lanes ran it and which branches diverged:",
                "divlab profile assets/kernels/collatz.wgsl --dispatch 4",
            ),
            ex(
                "An image kernel over a generated texture, its output saved as PNG:",
                "divlab profile assets/kernels/threshold.wgsl --texture src=gradient --dispatch 8,8 --save dst=threshold.png",
            ),
            ex(
                "Write the profile, then print it again without a GPU:",
                "divlab profile assets/kernels/collatz.wgsl --json profile.json --reps 3 && divlab profile --import profile.json",
            ),
        ],
    ),
    (
        "uniformity",
        &[
            ex(
                "Every .wgsl below a directory:",
                "divlab uniformity shaders/",
            ),
            ex(
                "SARIF for GitHub code scanning, URIs relative to the repository's root:",
                "divlab uniformity --sarif uniformity.sarif --sarif-root . shaders/",
            ),
            ex(
                "An unsaved buffer from standard input, as rustc's JSON:",
                "divlab uniformity --format rustc-json - < assets/kernels/threshold.wgsl",
            ),
        ],
    ),
    (
        "schema",
        &[
            ex("The result document's JSON Schema:", "divlab schema result"),
            ex(
                "The profile's, into a file a validator reads:",
                "divlab schema profile > profile.schema.json",
            ),
        ],
    ),
    (
        "completions",
        &[ex(
            "Bash completion for this user:",
            "divlab completions bash > divlab.bash",
        )],
    ),
    (
        "man",
        &[
            ex(
                "Every page (divlab.1, divlab-bench.1, ...) into a directory:",
                "divlab man --dir man",
            ),
            ex("The main page, to read at once:", "divlab man > divlab.1"),
        ],
    ),
];

/// The examples of the subcommand `name` (none for an unknown one).
pub(crate) fn examples(name: &str) -> &'static [Example] {
    EXAMPLES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |(_, examples)| examples)
}

/// The examples as `--help` ends with them.
fn help_text(examples: &[Example]) -> String {
    let mut text = String::from("Examples:");
    for e in examples {
        text.push_str(&format!("\n  {}\n    $ {}", e.what, e.command));
    }
    text
}

/// divlab's command with every subcommand's examples after its help (and after what its
/// `after_help` said before).
pub(crate) fn command(cli: Command) -> Command {
    let names: Vec<String> = cli
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    names.iter().fold(cli, |cli, name| {
        let list = examples(name);
        if list.is_empty() {
            return cli;
        }
        cli.mut_subcommand(name, |sub| {
            let before = sub.get_after_help().map(ToString::to_string);
            let after = match before {
                Some(before) => format!("{before}\n\n{}", help_text(list)),
                None => help_text(list),
            };
            sub.after_help(after)
        })
    })
}
