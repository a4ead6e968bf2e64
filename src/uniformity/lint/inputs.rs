//! What to lint: files, directories (every `*.wgsl` below them, sorted) and `-` (stdin).

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

/// The inputs named by `paths`, in order; a directory contributes its `*.wgsl` files,
/// recursively, sorted by path. A directory without one is an unreadable input of its own.
pub fn gather(paths: &[PathBuf]) -> Vec<Input> {
    let mut inputs = Vec::new();
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
            if let Err(e) = wgsl_files(path, &mut files) {
                inputs.push(unreadable(path, e.to_string()));
                continue;
            }
            if files.is_empty() {
                inputs.push(unreadable(
                    path,
                    "the directory holds no .wgsl file".to_owned(),
                ));
            }
            files.sort();
            inputs.extend(files.iter().map(|f| read(f)));
        } else {
            inputs.push(read(path));
        }
    }
    inputs
}

fn read(path: &Path) -> Input {
    Input {
        name: path.display().to_string(),
        text: std::fs::read_to_string(path).map_err(|e| e.to_string()),
    }
}

fn unreadable(path: &Path, why: String) -> Input {
    Input {
        name: path.display().to_string(),
        text: Err(why),
    }
}

fn wgsl_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            wgsl_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "wgsl") {
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
        for f in ["b.wgsl", "a.wgsl", "notes.txt", "sub/c.wgsl"] {
            std::fs::write(dir.path().join(f), "fn f() {}\n").unwrap();
        }
        let names: Vec<String> = gather(&[dir.path().to_path_buf()])
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
        assert_eq!(rel, ["/a.wgsl", "/b.wgsl", "/sub/c.wgsl"]);
    }

    #[test]
    fn missing_and_empty_inputs_are_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        let inputs = gather(&[dir.path().to_path_buf(), dir.path().join("nope.wgsl")]);
        assert_eq!(inputs.len(), 2);
        assert!(inputs.iter().all(|i| i.text.is_err()));
    }
}
