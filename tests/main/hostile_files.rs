//! Hostile files (issue 36): devices, FIFOs, symbolic-link cycles, fills larger than any
//! buffer, read-only and linked outputs, and the temporary files a killed divlab leaves. Each
//! run is bounded in time and must exit with its code and message: never a signal, a hang or
//! an out-of-memory kill.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

use crate::util::{self, Run, divlab, path_in, run_within, temp_dir};

/// The most any of these runs may take (a profile of Collatz takes about a second).
const BOUND: Duration = Duration::from_secs(60);

/// The Collatz kernel of the issue's repro, copied into `dir` as `collatz.wgsl`.
fn collatz(dir: &Path) {
    let source = include_str!("../../assets/kernels/collatz.wgsl");
    std::fs::write(dir.join("collatz.wgsl"), source).unwrap();
}

/// Makes a FIFO at `path` (with no writer: opening it for reading would block forever).
fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// Runs `divlab ARGS` in `dir` within [`BOUND`].
fn divlab_in(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = divlab(dir);
    cmd.args(args);
    run_within(cmd, BOUND)
}

/// Panics unless the run exited 2 with every one of `needles` on stderr.
#[track_caller]
fn assert_refused(out: &Run, needles: &[&str]) {
    out.assert_code(2);
    for needle in needles {
        assert!(
            out.stderr.contains(needle),
            "no `{needle}` on stderr\n{out}"
        );
    }
}

/// Row 1: `--buffer seeds=file:/dev/zero` was read whole (killed at 24 GB). A device is
/// refused unread, a file larger than any binding names the limit (not a `--len` the limit then
/// refuses), and a file larger than its buffer advises a `--len` that works.
#[test]
fn file_fills_are_bounded_before_they_are_read() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    collatz(dir.path());
    let out = divlab_in(
        dir.path(),
        &[
            "profile",
            "collatz.wgsl",
            "--buffer",
            "seeds=file:/dev/zero",
        ],
    );
    assert_refused(
        &out,
        &["file:/dev/zero", "a character device, not a regular file"],
    );
    // 5 GiB (sparse: nothing is written or read) is more than any adapter binds.
    let huge = path_in(&dir, "huge.bin");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(5 << 30)
        .unwrap();
    let out = divlab_in(
        dir.path(),
        &["profile", "collatz.wgsl", "--buffer", "seeds=file:huge.bin"],
    );
    assert_refused(&out, &["has 5368709120 bytes", "give a file of at most"]);
    assert!(
        !out.stderr.contains("--len"),
        "advice that cannot work\n{out}"
    );
    std::fs::write(path_in(&dir, "mid.bin"), [7u8; 1000]).unwrap();
    let fill = ["profile", "collatz.wgsl", "--buffer", "seeds=file:mid.bin"];
    let out = divlab_in(dir.path(), &fill);
    assert_refused(&out, &["has 1000 bytes", "pass --len seeds=250 to fit it"]);
    let out = divlab_in(dir.path(), &[&fill[..], &["--len", "seeds=250"]].concat());
    out.assert_code(0);
}

/// Row 2: `ln -s . loop; ln -s .. sub/up` made `divlab uniformity d` run until killed, and
/// `ln -s . loop` alone linted each file 41 times. Each file is linted once.
#[cfg(unix)]
#[test]
fn symlink_cycles_lint_each_file_once() {
    let dir = temp_dir();
    let d = path_in(&dir, "d");
    std::fs::create_dir_all(d.join("sub")).unwrap();
    std::fs::write(d.join("a.wgsl"), "fn f() {}\n").unwrap();
    std::fs::write(d.join("sub/b.wgsl"), "fn g() {}\n").unwrap();
    std::os::unix::fs::symlink(".", d.join("loop")).unwrap();
    std::os::unix::fs::symlink("..", d.join("sub/up")).unwrap();
    let out = divlab_in(dir.path(), &["uniformity", "--format", "json", "d"]);
    out.assert_code(0);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let files: Vec<&str> = (doc["files"].as_array().unwrap().iter())
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["d/a.wgsl", "d/sub/b.wgsl"], "{out}");
}

/// Row 3: a FIFO blocked every command that read it. Each refuses it at once, naming it, and
/// `uniformity` still lints the other files of the directory.
#[cfg(unix)]
#[test]
fn fifos_are_refused_everywhere_divlab_reads_a_file() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    collatz(dir.path());
    std::fs::create_dir(path_in(&dir, "d")).unwrap();
    std::fs::write(path_in(&dir, "d/a.wgsl"), "fn f() {}\n").unwrap();
    mkfifo(&path_in(&dir, "d/pipe.wgsl"));
    mkfifo(&path_in(&dir, "pipe"));
    let image = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/kernels/profile/image_filter.wgsl"
    );
    let not_regular = "it is a FIFO (named pipe), not a regular file";
    // The linter reports an unreadable input among its findings, on stdout.
    let out = divlab_in(dir.path(), &["uniformity", "d"]);
    out.assert_code(2);
    let unreadable = format!("error: d/pipe.wgsl: cannot read the file: {not_regular}");
    assert!(out.stdout.contains(&unreadable), "{out}");
    assert!(out.stdout.contains("d/a.wgsl: 0 errors"), "{out}");
    for args in [
        &["profile", "d/pipe.wgsl"][..],
        &["profile", "collatz.wgsl", "--buffer", "seeds=file:pipe"],
        &["profile", image, "--texture", "src=file:pipe"],
        &["profile", "--import", "pipe"],
        &["compare", "pipe"],
        &["table", "pipe"],
        &["report", "pipe", "-o", "out.html"],
    ] {
        let out = divlab_in(dir.path(), args);
        assert_refused(&out, &["pipe", not_regular]);
    }
}

/// Row 9: a SIGKILL during a write left `.tmpXXXXXX` files of megabytes beside the target.
/// divlab's temporary files are named `.divlab-tmp-…`, and the next write to the folder removes
/// those over a minute old, and nothing else. (Ctrl-C removing the file being written is
/// `report::atomic`'s unit test `ctrl_c_removes_the_file_being_written`.)
#[test]
fn the_next_write_removes_what_a_killed_write_left() {
    let dir = temp_dir();
    std::fs::write(path_in(&dir, "k.wgsl"), "fn f() {}\n").unwrap();
    let prefix = divlab::report::TEMP_PREFIX;
    let killed = path_in(&dir, &format!("{prefix}killed"));
    let others = path_in(&dir, ".tmpABC123");
    for path in [&killed, &others] {
        std::fs::write(path, "half a document").unwrap();
        let long_ago = SystemTime::now() - divlab::report::STALE_AFTER * 2;
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(long_ago).unwrap();
    }
    let out = divlab_in(dir.path(), &["uniformity", "k.wgsl", "--json", "u.json"]);
    out.assert_code(0);
    assert!(
        !killed.exists(),
        "divlab's stale temporary file is still there"
    );
    assert!(others.exists(), "another program's file was removed");
}

/// Row 10: `--json link.json` made the link a regular file and left its target as it was.
#[cfg(unix)]
#[test]
fn a_linked_output_is_written_through() {
    let dir = temp_dir();
    std::fs::write(path_in(&dir, "k.wgsl"), "fn f() {}\n").unwrap();
    std::fs::create_dir(path_in(&dir, "real")).unwrap();
    std::fs::write(path_in(&dir, "real/u.json"), "old").unwrap();
    let link = path_in(&dir, "link.json");
    std::os::unix::fs::symlink("real/u.json", &link).unwrap();
    let out = divlab_in(dir.path(), &["uniformity", "k.wgsl", "--json", "link.json"]);
    out.assert_code(0);
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    let written = std::fs::read_to_string(path_in(&dir, "real/u.json")).unwrap();
    assert!(written.contains("\"schema_version\""), "{written}");
}

/// Row 10 and the messages: a read-only `ro.csv` was replaced silently, and a write error came
/// after the run, twice, naming the temporary file. Both are refused before the run (no
/// adapter is opened, nothing is printed), once, naming the file the user gave.
#[test]
fn unwritable_outputs_are_refused_before_the_run_once() {
    let dir = temp_dir();
    collatz(dir.path());
    let ro = path_in(&dir, "ro.csv");
    std::fs::write(&ro, "old").unwrap();
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&ro, perms).unwrap();
    let out = divlab_in(dir.path(), &["bench", "--quick", "--csv", "ro.csv"]);
    assert_refused(&out, &["--csv: cannot write ro.csv: the file is read-only"]);
    assert_eq!(std::fs::read_to_string(&ro).unwrap(), "old");
    for (args, message) in [
        (
            &["profile", "collatz.wgsl", "--json", "nodir/p.json"][..],
            "--json: cannot write nodir/p.json: the directory nodir does not exist",
        ),
        (
            &["profile", "collatz.wgsl", "--csv", "ro.csv"],
            "--csv: cannot write ro.csv: the file is read-only",
        ),
        (
            &["profile", "collatz.wgsl", "--json", "."],
            "--json: cannot write .: it is a directory",
        ),
        (
            &["uniformity", "collatz.wgsl", "--sarif", "nodir/u.sarif"],
            "--sarif: cannot write nodir/u.sarif: the directory nodir does not exist",
        ),
    ] {
        let out = divlab_in(dir.path(), args);
        assert_refused(&out, &[message]);
        assert_eq!(out.stderr.matches("error").count(), 1, "{out}");
        assert!(!out.stderr.contains(".divlab-tmp"), "{out}");
        assert!(out.stdout.is_empty(), "the run went ahead\n{out}");
    }
}

/// A profile document given to `compare` said "does not match the result schema … unknown
/// field `kernel`"; it says what it is and which command reads it.
#[test]
fn a_profile_given_to_compare_says_to_import_it() {
    let dir = temp_dir();
    let profile = r#"{"schema_version": 2, "kernel": {"file": "k.wgsl"}, "lines": []}"#;
    std::fs::write(path_in(&dir, "p.json"), profile).unwrap();
    let out = divlab_in(dir.path(), &["compare", "p.json"]);
    assert_refused(
        &out,
        &[
            "p.json: this is a profile",
            "use `divlab profile --import FILE`",
        ],
    );
}

/// `--json /dev/stdout` once made a temporary file in /dev and renamed it over the link (as
/// root, replacing /dev/stdout itself). divlab writes its own standard output, after the
/// summary, whether that is a pipe or a file a shell redirected it to.
#[cfg(unix)]
#[test]
fn dev_stdout_is_written_in_place() {
    let dir = temp_dir();
    std::fs::write(path_in(&dir, "k.wgsl"), "fn f() {}\n").unwrap();
    let args = ["uniformity", "k.wgsl", "--json", "/dev/stdout"];
    let out = divlab_in(dir.path(), &args);
    out.assert_code(0);
    assert!(
        out.stdout.starts_with("k.wgsl: 0 errors") && out.stdout.contains("\"schema_version\""),
        "{out}"
    );
    let redirected = path_in(&dir, "out.txt");
    let mut cmd = divlab(dir.path());
    cmd.args(args)
        .stdout(std::fs::File::create(&redirected).unwrap());
    let mut child = cmd.spawn().unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > BOUND {
            let _ = child.kill();
            panic!("divlab did not finish within {BOUND:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status}");
    let text = std::fs::read_to_string(&redirected).unwrap();
    assert!(
        text.starts_with("k.wgsl: 0 errors") && text.contains("\"schema_version\""),
        "{text}"
    );
    assert!(Path::new("/dev/stdout").symlink_metadata().is_ok());
}
