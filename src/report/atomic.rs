//! Atomic writes of the files divlab makes: a temporary file beside the target, then a rename,
//! so a reader never sees half a file and a failed run leaves the previous file intact.
//!
//! The temporary files are named `.divlab-tmp-XXXXXX`. Ctrl-C (or SIGTERM, SIGHUP) during a
//! write removes the one being written before the signal ends the process; a file a SIGKILL
//! left is removed by the next write to the same folder once it is a minute old. Only files of
//! that name are ever removed.
//!
//! A target that is a symbolic link is written through (the link's target is replaced, and the
//! link stays); a read-only target is refused; a device, a FIFO or anything under `/dev` or
//! `/proc` (`/dev/null`, `/dev/stdout`) is written in place, since a rename would replace the
//! device itself (or the file a shell redirected standard output to).
//! [`check_writable`] makes the same checks before a run, so that a run of minutes does not end
//! in an error it could have given at once.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::{Error, Result};

/// The name every temporary file of divlab's starts with; only such files are cleaned up.
pub const TEMP_PREFIX: &str = ".divlab-tmp-";

/// How old a temporary file must be before another write takes it for one a killed divlab
/// left: a write takes milliseconds, so a minute is far from any write still going on.
pub const STALE_AFTER: Duration = Duration::from_secs(60);

/// Writes `bytes` to `path` atomically (see the module's notes). Errors name `path`, never the
/// temporary file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let err = |reason| Error::Write {
        path: path.to_owned(),
        reason: Arc::new(reason),
    };
    match Target::of(path).map_err(err)? {
        Target::Special(special) => {
            let mut out: Box<dyn std::io::Write> = match own_stream(&special) {
                Some(Stream::Stdout) => Box::new(std::io::stdout().lock()),
                Some(Stream::Stderr) => Box::new(std::io::stderr().lock()),
                None => Box::new(
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open(special)
                        .map_err(err)?,
                ),
            };
            out.write_all(bytes).and_then(|()| out.flush()).map_err(err)
        }
        Target::File { path: target, meta } => {
            let dir = folder_of(&target);
            remove_stale(dir);
            let (mut file, live) =
                temp_file(dir, meta.as_ref()).map_err(|e| err(without_temp_path(e)))?;
            file.write_all(bytes)
                .and_then(|()| file.as_file().sync_all())
                .map_err(err)?;
            file.persist(&target).map_err(|e| err(e.error))?;
            drop(live);
            Ok(())
        }
    }
}

/// Checks, before a run, that [`write_atomic`] could write `path`: its folder exists and takes
/// new files, and `path` is no directory and not read-only. Writes nothing that stays.
pub fn check_writable(path: &Path) -> Result<()> {
    let err = |reason| Error::Write {
        path: path.to_owned(),
        reason: Arc::new(reason),
    };
    if let Target::File { path: target, meta } = Target::of(path).map_err(err)? {
        // Creating (and at once dropping) a temporary file is the one sure test of the folder:
        // permissions, a read-only mount, ACLs, a full quota.
        let probe = builder(meta.as_ref()).tempfile_in(folder_of(&target));
        probe.map_err(|e| err(without_temp_path(e)))?;
    }
    Ok(())
}

/// What a write to a path replaces.
enum Target {
    /// A regular file, or a name where none is yet: replaced by a rename. `path` is where the
    /// symbolic links end; `meta` the existing file's metadata.
    File {
        path: PathBuf,
        meta: Option<std::fs::Metadata>,
    },
    /// A device or FIFO, written in place.
    Special(PathBuf),
}

impl Target {
    /// Follows `path`'s symbolic links and checks what is there: a directory or a read-only
    /// file is an error that says what to do.
    fn of(path: &Path) -> std::io::Result<Self> {
        // The kernel follows the links first: `/dev/stdout`'s chain ends in a pipe whose
        // `read_link` name (`pipe:[…]`) is no path.
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // Nothing there yet, or a link to a file to be made: where the chain ends.
                let target = follow_links(path)?;
                check_folder(folder_of(&target))?;
                return Ok(Self::File {
                    path: target,
                    meta: None,
                });
            }
            // A loop of links gets its own message.
            Err(e) => return Err(follow_links(path).err().unwrap_or(e)),
        };
        if meta.is_dir() {
            return Err(io_error(
                "it is a directory; give the name of a file to write".to_owned(),
            ));
        }
        // `/dev/stdout` may lead to a regular file (`> out.txt`), which a rename would replace
        // under the shell's redirection: what lives in /dev and /proc is written in place.
        if !meta.is_file() || path.starts_with("/dev") || path.starts_with("/proc") {
            return Ok(Self::Special(path.to_owned()));
        }
        let target = if path.symlink_metadata()?.file_type().is_symlink() {
            std::fs::canonicalize(path)?
        } else {
            path.to_owned()
        };
        if meta.permissions().readonly() {
            let through = if target == path {
                String::new()
            } else {
                format!(" (the link's target {})", target.display())
            };
            return Err(io_error(format!(
                "the file{through} is read-only, and divlab does not replace a read-only file; \
                 make it writable (`chmod u+w`) or give another path"
            )));
        }
        Ok(Self::File {
            path: target,
            meta: Some(meta),
        })
    }
}

/// One of divlab's own standard streams.
enum Stream {
    Stdout,
    Stderr,
}

/// The stream that `path` names (`/dev/stdout` and its aliases), which divlab writes through
/// its own handle: opening the name again would start at the file's beginning, over what the
/// process wrote before.
fn own_stream(path: &Path) -> Option<Stream> {
    match path.to_str()? {
        "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1" => Some(Stream::Stdout),
        "/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2" => Some(Stream::Stderr),
        _ => None,
    }
}

/// Where `path`'s chain of symbolic links ends (itself when it is none), whether or not a file
/// is there: `--json link.json` writes the file the link names.
fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut at = path.to_owned();
    // Linux's own limit on links followed in one path.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let next = std::fs::read_link(&at)?;
                // A relative link is relative to the folder that holds it.
                at = folder_of(&at).join(next);
            }
            _ => return Ok(at),
        }
    }
    Err(io_error(
        "its symbolic links go round in a loop (or more than 40 deep)".to_owned(),
    ))
}

/// The folder a file at `path` goes in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Why no file can be made in `dir`, where the reason is that it is missing or no folder.
fn check_folder(dir: &Path) -> std::io::Result<()> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(io_error(format!(
            "{} is not a directory, so no file can be made in it",
            dir.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(io_error(format!(
            "the directory {} does not exist; create it first, or give another path",
            dir.display()
        ))),
        Err(e) => Err(e),
    }
}

/// An I/O error carrying divlab's own message.
fn io_error(message: String) -> std::io::Error {
    std::io::Error::other(message)
}

/// A new temporary file in `dir` (see [`builder`]), registered for removal on Ctrl-C until the
/// guard drops.
fn temp_file(
    dir: &Path,
    existing: Option<&std::fs::Metadata>,
) -> std::io::Result<(tempfile::NamedTempFile, Live)> {
    let file = builder(existing).tempfile_in(dir)?;
    let live = Live::new(file.path().to_owned());
    Ok((file, live))
}

/// Makes temporary files named [`TEMP_PREFIX`]…, with the permissions of the file they will
/// replace (`existing`), or 0644.
fn builder(existing: Option<&std::fs::Metadata>) -> tempfile::Builder<'static, 'static> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX);
    match existing {
        Some(meta) => {
            builder.permissions(meta.permissions());
        }
        // A temporary file is owner-only; a result file is meant to be shared (CI artifacts).
        #[cfg(unix)]
        None => {
            builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
        }
        #[cfg(not(unix))]
        None => {}
    }
    builder
}

/// tempfile adds "at path /dir/.divlab-tmp-XXXXXX" to its errors; the user named the target,
/// which the message names already.
fn without_temp_path(e: std::io::Error) -> std::io::Error {
    let inner = e
        .get_ref()
        .and_then(|r| r.source())
        .and_then(|s| s.downcast_ref::<std::io::Error>());
    match inner {
        Some(inner) => match inner.raw_os_error() {
            Some(code) => std::io::Error::from_raw_os_error(code),
            None => std::io::Error::new(inner.kind(), inner.to_string()),
        },
        None => e,
    }
}

/// Removes the temporary files of divlab's naming in `dir` older than [`STALE_AFTER`]: what a
/// divlab killed mid-write (SIGKILL, a power cut) left. Best effort: an error skips the file.
fn remove_stale(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let stale = entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX)
            && entry.metadata().is_ok_and(|m| {
                m.is_file()
                    && m.modified()
                        .ok()
                        .and_then(|t| t.elapsed().ok())
                        .is_some_and(|age| age > STALE_AFTER)
            });
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The temporary files being written now, which a signal's handler removes.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary file in [`LIVE`] while the guard lives.
struct Live(PathBuf);

impl Live {
    fn new(path: PathBuf) -> Self {
        on_signal_remove_live();
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(path.clone());
        Self(path)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = live.iter().position(|p| *p == self.0) {
            live.swap_remove(i);
        }
    }
}

/// Installs, once, on the first write, a thread that on SIGINT, SIGTERM or SIGHUP removes the
/// temporary files being written, then ends the process by the signal's default action, as it
/// would have ended without divlab's handler (a shell sees "killed by SIGINT"). A process that
/// writes nothing keeps the default handling untouched.
#[cfg(unix)]
fn on_signal_remove_live() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            // No handler: a signal leaves a stale file, which the next write removes.
            return;
        };
        std::thread::Builder::new()
            .name("divlab-signals".to_owned())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    for path in LIVE.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                        let _ = std::fs::remove_file(path);
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                }
            })
            .ok();
    });
}

/// Elsewhere a signal leaves a stale file, which the next write removes.
#[cfg(not(unix))]
fn on_signal_remove_live() {}

#[cfg(test)]
#[path = "atomic_tests.rs"]
mod tests;
