//! What to lint: files, directories (every `*.wgsl` below them, sorted, each once) and `-`
//! (stdin). Only regular files are read: a FIFO would block, a device never end.

use std::collections::HashSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// One source to check.
#[derive(Clone, Debug)]
pub struct Input {
    /// The name reported: the path as given (joined below a directory), or `<stdin>`.
    pub name: String,
    /// The text, or why it could not be read.
    pub text: Result<String, String>,
}

/// What `paths` name: the inputs, and the directories skipped because they hold no `*.wgsl`.
#[derive(Debug, Default)]
pub struct Gathered {
    pub inputs: Vec<Input>,
    /// Directories without a `*.wgsl` file below them: skipped with a note, as linters skip
    /// them (`divlab uniformity shaders/ src/gpu/` lints shaders/ and says src/gpu/ had none).
    pub skipped: Vec<PathBuf>,
}

/// The inputs named by `paths`, in order; a directory contributes its `*.wgsl` files,
/// recursively, sorted by path. A directory without one is skipped (listed in `skipped`).
pub fn gather(paths: &[PathBuf]) -> Gathered {
    let mut gathered = Gathered::default();
    let inputs = &mut gathered.inputs;
    for path in paths {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            let read = std::io::stdin().read_to_string(&mut text);
            inputs.push(Input {
                name: "<stdin>".to_owned(),
                text: read.map(|_| text).map_err(|e| e.to_string()),
            });
        } else if path.is_dir() {
            let mut files = Vec::new();
            if let Err(e) = wgsl_files(path, &mut HashSet::new(), &mut files) {
                inputs.push(unreadable(path, e.to_string()));
                continue;
            }
            if files.is_empty() {
                gathered.skipped.push(path.clone());
            }
            files.sort();
            inputs.extend(files.iter().map(|f| read(f)));
        } else {
            inputs.push(read(path));
        }
    }
    gathered
}

/// A named file, read if it is a regular one: a FIFO would block, a device never end.
fn read(path: &Path) -> Input {
    let text = crate::user_file::read_text(path, u64::MAX).map_err(|e| match e {
        crate::user_file::ReadError::NotRegular(_) => {
            format!("{e}; pass `-` to read standard input")
        }
        _ => e.to_string(),
    });
    Input {
        name: path.display().to_string(),
        text,
    }
}

fn unreadable(path: &Path, why: String) -> Input {
    Input {
        name: path.display().to_string(),
        text: Err(why),
    }
}

/// The `*.wgsl` files below `dir`, each once: symbolic links are followed, but a directory or
/// file reached again (`ln -s . loop`, `ln -s .. up`, two links to one file) is skipped, so a
/// cycle ends and no file is linted twice. `seen` holds the canonical paths visited.
fn wgsl_files(
    dir: &Path,
    seen: &mut HashSet<PathBuf>,
    out: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    if !seen.insert(std::fs::canonicalize(dir)?) {
        return Ok(());
    }
    let mut entries = std::fs::read_dir(dir)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<std::io::Result<Vec<_>>>()?;
    // In path order, so that of two names for one file the first in the listing is kept.
    entries.sort();
    for path in entries {
        if path.is_dir() {
            wgsl_files(&path, seen, out)?;
        } else if crate::user_file::is_wgsl(&path)
            && seen.insert(std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone()))
        {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_expand_to_sorted_wgsl_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        for f in ["b.wgsl", "a.wgsl", "notes.txt", "sub/c.wgsl", "D.WGSL"] {
            std::fs::write(dir.path().join(f), "fn f() {}\n").unwrap();
        }
        let names: Vec<String> = gather(&[dir.path().to_path_buf()])
            .inputs
            .into_iter()
            .map(|i| i.name)
            .collect();
        let rel: Vec<String> = names
            .iter()
            .map(|n| {
                n.strip_prefix(&dir.path().display().to_string())
                    .unwrap()
                    .to_owned()
            })
            .collect();
        // The extension in any case, as Windows tools write it.
        assert_eq!(rel, ["/D.WGSL", "/a.wgsl", "/b.wgsl", "/sub/c.wgsl"]);
    }

    /// `ln -s . loop` and `ln -s .. sub/up` once made the walk endless (or lint each file 41
    /// times, until the path grew too long): each file is listed once, by its first name.
    #[cfg(unix)]
    #[test]
    fn symlink_cycles_list_each_file_once() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        for f in ["a.wgsl", "sub/b.wgsl"] {
            std::fs::write(d.join(f), "fn f() {}\n").unwrap();
        }
        std::os::unix::fs::symlink(".", d.join("loop")).unwrap();
        std::os::unix::fs::symlink("..", d.join("sub/up")).unwrap();
        std::os::unix::fs::symlink("a.wgsl", d.join("z.wgsl")).unwrap();
        let names: Vec<String> = gather(&[d.to_path_buf()])
            .inputs
            .into_iter()
            .map(|i| {
                i.name
                    .strip_prefix(&d.display().to_string())
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(names, ["/a.wgsl", "/sub/b.wgsl"]);
    }

    /// A FIFO blocked the read forever, and nothing was printed for the other files: it is an
    /// unreadable input of its own, read without opening it.
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_unreadable_and_the_rest_is_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.wgsl"), "fn f() {}\n").unwrap();
        let fifo = dir.path().join("pipe.wgsl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
        let inputs = gather(&[dir.path().to_path_buf()]).inputs;
        assert_eq!(inputs.len(), 2);
        assert!(inputs[0].text.is_ok());
        let why = inputs[1].text.as_ref().unwrap_err();
        assert!(
            why.starts_with("it is a FIFO (named pipe), not a regular file"),
            "{why}"
        );
    }

    #[test]
    fn a_missing_file_is_unreadable_and_an_empty_directory_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let gathered = gather(&[dir.path().to_path_buf(), dir.path().join("nope.wgsl")]);
        assert_eq!(gathered.inputs.len(), 1);
        assert!(gathered.inputs[0].text.is_err());
        assert_eq!(gathered.skipped, [dir.path().to_path_buf()]);
    }
}
