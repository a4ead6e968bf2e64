//! Reading the files a user names (kernels, `file:` fills, images, documents): regular files
//! only, and never more bytes than the caller can use.
//!
//! Opening a FIFO blocks until something writes to it, and `/dev/zero` never ends, so the kind
//! of file is checked before it is opened, and every read is bounded: by the size metadata gives
//! first, then by reading at most one byte past the bound (metadata can lie: a file still
//! growing, `/proc`). Reading standard input is the caller's, where a command takes `-`.

use std::fs::{File, Metadata};
use std::io::Read as _;
use std::path::Path;

/// Whether `path` names a WGSL kernel by its extension (`.wgsl`, in any case): what the app
/// opens in the Playground and `uniformity` lints in a folder, and what the readers of
/// documents, given one, say to profile instead.
pub fn is_wgsl(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wgsl"))
}

/// Why a file a user named was not read.
#[derive(Debug)]
pub enum ReadError {
    /// It is not a regular file: what it is instead (`"a FIFO (named pipe)"`).
    NotRegular(&'static str),
    /// It holds more bytes than the caller reads: its size where metadata gave it, `None` where
    /// only reading past the bound found out.
    TooLarge(Option<u64>),
    /// The file system's error (missing, no permission, not UTF-8).
    Io(std::io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotRegular(kind) => write!(
                f,
                "it is {kind}, not a regular file: divlab reads only regular files (one could \
                 block or never end), so save the data to a file first"
            ),
            Self::TooLarge(Some(len)) => write!(f, "it holds {len} bytes, more than divlab reads"),
            Self::TooLarge(None) => f.write_str("it holds more bytes than divlab reads"),
            Self::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

/// What a file that is not a regular one is, for messages; `None` for a regular file.
pub fn special_kind(meta: &Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    if kind.is_file() {
        return None;
    }
    if kind.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if kind.is_char_device() {
            return Some("a character device");
        }
        if kind.is_block_device() {
            return Some("a block device");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
    }
    Some("a special file")
}

/// The metadata of `path` (symbolic links followed), or why it is no file to read. Looks at the
/// file without opening it, so a FIFO cannot block.
pub fn check_regular(path: &Path) -> Result<Metadata, ReadError> {
    let meta = std::fs::metadata(path)?;
    match special_kind(&meta) {
        Some(kind) => Err(ReadError::NotRegular(kind)),
        None => Ok(meta),
    }
}

/// Opens `path` for reading if it is a regular file, with its size.
pub fn open(path: &Path) -> Result<(File, u64), ReadError> {
    check_regular(path)?;
    let file = File::open(path)?;
    // The path may have been replaced between the look and the open.
    let meta = file.metadata()?;
    match special_kind(&meta) {
        Some(kind) => Err(ReadError::NotRegular(kind)),
        None => Ok((file, meta.len())),
    }
}

/// The bytes of the regular file `path`, refused without reading when it holds more than `max`.
pub fn read_at_most(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let (file, len) = open(path)?;
    if len > max {
        return Err(ReadError::TooLarge(Some(len)));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge(None));
    }
    Ok(bytes)
}

/// The text of the regular file `path` (UTF-8), refused without reading when it holds more
/// than `max` bytes.
pub fn read_text(path: &Path, max: u64) -> Result<String, ReadError> {
    let bytes = read_at_most(path, max)?;
    String::from_utf8(bytes).map_err(|e| {
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text (an invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_within_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bin");
        std::fs::write(&path, [1, 2, 3]).unwrap();
        assert_eq!(read_at_most(&path, 3).unwrap(), [1, 2, 3]);
        assert!(matches!(
            read_at_most(&path, 2),
            Err(ReadError::TooLarge(Some(3)))
        ));
    }

    #[test]
    fn directories_are_not_regular_files() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_at_most(dir.path(), 10).unwrap_err();
        assert!(matches!(err, ReadError::NotRegular("a directory")), "{err}");
    }

    /// `/dev/zero` never ends: it is refused before a byte is read, within the test's time.
    #[cfg(unix)]
    #[test]
    fn devices_are_refused_unread() {
        let start = std::time::Instant::now();
        let err = read_at_most(Path::new("/dev/zero"), u64::MAX).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("it is a character device, not a regular file"),
            "{err}"
        );
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }

    /// A FIFO with no writer would block `open` forever: it is refused from its metadata.
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.wgsl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
        let err = read_text(&fifo, 1024).unwrap_err();
        assert!(
            matches!(err, ReadError::NotRegular("a FIFO (named pipe)")),
            "{err}"
        );
    }
}
