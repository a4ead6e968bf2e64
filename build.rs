//! Records what built this divlab, for `divlab --version` and every result document: the git
//! commit, and the wgpu and naga versions from Cargo.lock (the compiler that wrote the SPIR-V).

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

/// The commit checked out when this was built; `unknown` outside a git checkout (a source
/// tarball, a registry build). No `-dirty` mark: tracking the work tree would rerun this script
/// on every file save.
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
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(commit) if !commit.is_empty() => commit,
        _ => "unknown".to_owned(),
    }
}
