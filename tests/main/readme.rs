//! The front door: the README's size and Quick start, every relative link in README.md and
//! docs/, and the findings tables, whose numbers come from the reference result files, not from
//! a keyboard.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use divlab::experiments::catalog;
use divlab::report::{markdown_key_table, read_json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md and every Markdown file under docs/, sorted.
pub(crate) fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut files);
    files.sort();
    files
}

/// The Quick start's two commands are the project's promise to a new user: word for word.
#[test]
fn quick_start_is_unchanged() {
    let readme = read(&root().join("README.md"));
    let start = readme
        .find("\n## Quick start\n")
        .expect("README has a `## Quick start` section");
    let section = &readme[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    for command in [
        "scripts/setup && cargo run --release -- --bench",
        "scripts/setup && scripts/setup-tests && cargo test",
    ] {
        assert!(
            section.contains(&format!("```sh\n{command}\n```")),
            "the Quick start lacks its command `{command}` in a ```sh block:\n{section}"
        );
    }
}

/// The Quick start never depends on PyPI: scripts/setup installs what running divlab needs and
/// no Python package (the tests' peers are scripts/setup-tests').
#[test]
fn setup_needs_no_python_packages() {
    let setup = read(&root().join("scripts/setup"));
    for word in ["pip ", "pip\"", "venv", "npm "] {
        assert!(
            !setup.contains(word),
            "scripts/setup mentions `{word}`: move the tests' peers to scripts/setup-tests"
        );
    }
    assert!(read(&root().join("scripts/setup-tests")).contains("PYTHON_PEERS"));
}

/// The repository's address is Cargo.toml's `repository`, written out once there: every copy in
/// README.md, docs/ and CITATION.cff is that one (the Actions snippet once said `OWNER`).
#[test]
fn the_repository_address_is_cargo_tomls() {
    let repository = env!("CARGO_PKG_REPOSITORY");
    assert!(
        repository.starts_with("https://github.com/"),
        "{repository}"
    );
    let mut files = markdown_files();
    files.push(root().join("CITATION.cff"));
    for file in files {
        let text = read(&file);
        assert!(!text.contains("OWNER"), "{} says OWNER", file.display());
        for (at, _) in text.match_indices("https://github.com/") {
            let address: String = text[at..]
                .chars()
                .take_while(|c| !c.is_whitespace() && !"\")`'\"".contains(*c))
                .collect();
            let owner_repo: Vec<&str> = address["https://github.com/".len()..].split('/').collect();
            if owner_repo.get(1).is_some_and(|r| *r == "divlab") {
                assert!(
                    address.starts_with(repository),
                    "{}: {address} is not Cargo.toml's repository {repository}",
                    file.display()
                );
            }
        }
    }
}

/// The README is the front door, not the manual: at most 15 KB, the rest in docs/.
#[test]
fn readme_is_at_most_15_kb() {
    let size = std::fs::metadata(root().join("README.md"))
        .expect("README.md")
        .len();
    assert!(
        size <= 15 * 1024,
        "README.md is {size} bytes; move detail into docs/"
    );
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors a Markdown file's headings give (a repeated heading gets `-1`, `-2`, ...).
fn anchors(text: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    prose_lines(text)
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| {
            let base = slug(l.trim_start_matches('#'));
            let n = seen.entry(base.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                base
            } else {
                format!("{base}-{}", *n - 1)
            }
        })
        .collect()
}

/// The lines outside fenced code blocks.
fn prose_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    text.lines().filter(move |l| {
        if l.trim_start().starts_with("```") {
            fenced = !fenced;
            return false;
        }
        !fenced
    })
}

/// Every `[text](target)` target on the prose lines of `text`.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(text) {
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            if let Some(end) = rest.find(')') {
                out.push(rest[..end].to_owned());
                rest = &rest[end..];
            }
        }
    }
    out
}

/// Every relative link in README.md and docs/ names a file that exists, and every `#anchor`
/// one of its target's headings.
#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in markdown_files() {
        let text = read(&file);
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                file.parent().expect("a file has a folder").join(path)
            };
            let shown = format!(
                "{}: ({target})",
                file.strip_prefix(root()).unwrap_or(&file).display()
            );
            if !resolved.exists() {
                broken.push(format!("{shown}: no such file"));
            } else if !anchor.is_empty() {
                let heads = anchors(&read(&resolved));
                if !heads.iter().any(|h| h == anchor) {
                    broken.push(format!("{shown}: no heading #{anchor}"));
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} relative links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn link_checker_reads_what_it_should() {
    assert_eq!(slug(" The app's frame cost"), "the-apps-frame-cost");
    assert_eq!(slug("CSV: the long form"), "csv-the-long-form");
    assert_eq!(slug("`divlab profile`: 0 and 1"), "divlab-profile-0-and-1");
    let text =
        "# A\n```\n[x](in-code.md)\n# not a heading\n```\n## A\nsee [y](y.md#a-1) and [z](z.md)\n";
    assert_eq!(link_targets(text), ["y.md#a-1", "z.md"]);
    assert_eq!(anchors(text), ["a", "a-1"]);
}

const BEGIN: &str = "<!-- reference-table:begin -->\n";
const END: &str = "<!-- reference-table:end -->";

/// The table between the findings page's markers is exactly
/// `divlab table assets/reference/*.json`.
#[test]
fn findings_table_matches_reference_files() {
    let mut files: Vec<_> = std::fs::read_dir(root().join("assets/reference"))
        .expect("assets/reference exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no reference result files");
    let docs: Vec<_> = files
        .iter()
        .map(|path| {
            let doc = read_json(path).unwrap_or_else(|e| panic!("{e}"));
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, doc)
        })
        .collect();
    let expected = markdown_key_table(&docs, &catalog());
    let findings = read(&root().join("docs/findings.md"));
    let start = findings
        .find(BEGIN)
        .expect("docs/findings.md has the begin marker")
        + BEGIN.len();
    let end = findings
        .find(END)
        .expect("docs/findings.md has the end marker");
    assert_eq!(
        &findings[start..end],
        expected,
        "docs/findings.md's reference table is stale; paste the output of \
         `divlab table assets/reference/*.json` between the markers"
    );
}
