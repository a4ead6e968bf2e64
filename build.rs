//! Records what built this divlab, for `divlab --version` and every result document: the git
//! commit (`-dirty` where the work tree differs from it), and the wgpu and naga versions from
//! Cargo.lock (the compiler that wrote the SPIR-V).

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    for (krate, var) in [
        ("wgpu", "DIVLAB_WGPU_VERSION"),
        ("naga", "DIVLAB_NAGA_VERSION"),
    ] {
        let version = locked_version(&lock, krate).unwrap_or_else(|| "unknown".to_owned());
        println!("cargo:rustc-env={var}={version}");
    }
    println!("cargo:rustc-env=DIVLAB_GIT_COMMIT={}", git_commit());
}

/// The version Cargo.lock pins for `krate` (the first entry, if there were several).
fn locked_version(lock: &str, krate: &str) -> Option<String> {
    let name = format!("name = \"{krate}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == name {
            let version = lines.next()?.trim().strip_prefix("version = \"")?;
            return Some(version.trim_end_matches('"').to_owned());
        }
    }
    None
}

/// What a build compiles in, besides Cargo's own sources: a change to any of them marks the
/// commit `-dirty`.
const BUILT_FROM: [&str; 7] = [
    "src",
    "shaders",
    "assets/kernels",
    "docs/exit-codes.md",
    "Cargo.toml",
    "Cargo.lock",
    "build.rs",
];

/// The commit checked out when this was built, with `-dirty` where the files it compiles in
/// differ from it (a binary built from a work tree in progress must not pass for the commit);
/// `unknown` outside a git checkout (a source tarball, a registry build).
fn git_commit() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    // Rebuild when HEAD moves: HEAD itself (a checkout) and the branch it names (a commit).
    // A path that does not exist (a packed ref) would rerun this script on every build.
    let watch = |p: String| {
        if std::path::Path::new(&p).exists() {
            println!("cargo:rerun-if-changed={p}");
        }
    };
    if let Some(p) = git(&["rev-parse", "--git-path", "HEAD"]) {
        watch(p);
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(p) = git(&["rev-parse", "--git-path", &branch])
    {
        watch(p);
    }
    // And when what is compiled in changes, which rebuilds the crate anyway: the script's few
    // git calls are all it adds. Not the index, which `git status` rewrites: a commit moves the
    // branch, watched above, and that clears the mark.
    for p in BUILT_FROM {
        watch(p.to_owned());
    }
    let status = [
        &["status", "--porcelain", "--untracked-files=no", "--"][..],
        &BUILT_FROM,
    ]
    .concat();
    let dirty = git(&status).is_some_and(|changes| !changes.is_empty());
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(commit) if !commit.is_empty() && dirty => format!("{commit}-dirty"),
        Some(commit) if !commit.is_empty() => commit,
        _ => "unknown".to_owned(),
    }
}
