//! The atomic writer against what users point it at: links, read-only files, devices, missing
//! folders, and the temporary files a killed or interrupted divlab leaves.

use std::path::Path;
use std::time::{Duration, SystemTime};

use super::*;

/// The names in `dir` that are divlab's temporary files.
fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(TEMP_PREFIX))
        .collect()
}

#[test]
fn a_write_replaces_the_file_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.json");
    write_atomic(&path, b"one").unwrap();
    write_atomic(&path, b"two").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"two");
    assert!(temp_files(dir.path()).is_empty());
}

/// `--json link.json` made the link a regular file and left its target as it was.
#[cfg(unix)]
#[test]
fn a_symlink_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("real")).unwrap();
    let target = dir.path().join("real/out.json");
    std::fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("real/out.json", &link).unwrap();
    write_atomic(&link, b"new").unwrap();
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), b"new");
    // A link whose target does not exist yet makes it.
    let dangling = dir.path().join("dangling.json");
    std::os::unix::fs::symlink("real/new.json", &dangling).unwrap();
    write_atomic(&dangling, b"made").unwrap();
    assert!(
        dangling
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read(dir.path().join("real/new.json")).unwrap(),
        b"made"
    );
    // A loop of links is an error, not a hang.
    std::os::unix::fs::symlink("b", dir.path().join("a")).unwrap();
    std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
    let err = write_atomic(&dir.path().join("a"), b"x").unwrap_err();
    assert!(err.to_string().contains("go round in a loop"), "{err}");
}

/// A read-only file was replaced silently; it is refused, before a run and at the write.
#[test]
fn a_read_only_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ro.csv");
    std::fs::write(&path, "old").unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
    for err in [
        check_writable(&path).unwrap_err(),
        write_atomic(&path, b"new").unwrap_err(),
    ] {
        let message = err.to_string();
        assert!(message.contains("is read-only"), "{message}");
        assert!(message.contains("ro.csv"), "{message}");
    }
    assert_eq!(std::fs::read(&path).unwrap(), b"old");
    assert!(temp_files(dir.path()).is_empty());
}

/// A missing folder or a directory as the target: one message that names the target, never
/// the temporary file.
#[test]
fn errors_name_the_target_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nodir/out.json");
    let message = check_writable(&missing).unwrap_err().to_string();
    assert!(
        message.contains("nodir/out.json") && message.contains("does not exist; create it"),
        "{message}"
    );
    assert!(!message.contains(TEMP_PREFIX), "{message}");
    let message = write_atomic(dir.path(), b"x").unwrap_err().to_string();
    assert!(message.contains("it is a directory"), "{message}");
    // The I/O error is the message's, not a `source` that `{:#}` would print again.
    let err = write_atomic(&missing, b"x").unwrap_err();
    assert!(std::error::Error::source(&err).is_none());
}

/// A device is written in place: renaming over `/dev/null` (as root, in CI) would replace it.
#[cfg(unix)]
#[test]
fn a_device_is_written_in_place() {
    let null = Path::new("/dev/null");
    check_writable(null).unwrap();
    write_atomic(null, b"discarded").unwrap();
    use std::os::unix::fs::FileTypeExt as _;
    assert!(
        std::fs::metadata(null)
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

/// What a SIGKILL left (a `.divlab-tmp-` file over a minute old) is removed by the next write
/// to the folder; a fresh one (a write going on) and other programs' files are not.
#[test]
fn stale_temporary_files_are_removed_by_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join(format!("{TEMP_PREFIX}killed"));
    let fresh = dir.path().join(format!("{TEMP_PREFIX}writing"));
    let foreign = dir.path().join(".tmpKEEP12");
    for path in [&old, &fresh, &foreign] {
        std::fs::write(path, "x").unwrap();
    }
    let long_ago = SystemTime::now() - STALE_AFTER - Duration::from_secs(60);
    for path in [&old, &foreign] {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(long_ago).unwrap();
    }
    write_atomic(&dir.path().join("out.json"), b"{}").unwrap();
    assert!(!old.exists(), "the stale temporary file is still there");
    assert!(fresh.exists() && foreign.exists());
}

/// The variable that makes [`ctrl_c_removes_the_file_being_written`] the child that writes.
const CHILD_DIR: &str = "DIVLAB_TEST_ATOMIC_CHILD_DIR";

/// Ctrl-C while a document was written left a `.tmpXXXXXX` file of megabytes. This test runs
/// itself again as a child that holds a temporary file open as a write does, sends it SIGINT,
/// and checks that the file is gone and the child ended by the signal, within 30 s.
#[cfg(unix)]
#[test]
fn ctrl_c_removes_the_file_being_written() {
    if let Some(dir) = std::env::var_os(CHILD_DIR) {
        let (_file, _live) = temp_file(Path::new(&dir), None).unwrap();
        std::thread::sleep(Duration::from_secs(60));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "report::atomic::tests::ctrl_c_removes_the_file_being_written",
            "--test-threads=1",
        ])
        .env(CHILD_DIR, dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let bound = Duration::from_secs(30);
    while temp_files(dir.path()).is_empty() {
        assert!(start.elapsed() < bound, "the child made no temporary file");
        std::thread::sleep(Duration::from_millis(10));
    }
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    assert!(sent.is_ok_and(|s| s.success()), "kill -INT failed");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > bound {
            let _ = child.kill();
            panic!("the child did not end within {bound:?} of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    use std::os::unix::process::ExitStatusExt as _;
    assert_eq!(status.signal(), Some(2), "the child ended with {status}");
    assert_eq!(temp_files(dir.path()), Vec::<String>::new());
}
