//! The runs a kernel's header comment names, in the two forms the repository's kernels write
//! (and `scripts/profile-corpus` reads):
//! - `// divlab-profile: ARGS`, one line per run (`// divlab-profile:` alone: no arguments);
//! - failing those, a command line `// divlab profile FILE ARGS`, continued on the next comment
//!   line where it ends in `\`; FILE (the kernel itself) is left out.
//!
//! Words are split as a POSIX shell splits them (`shlex`), as the script does.

use std::path::Path;

/// Header comments are looked for in the first lines only.
const HEADER_LINES: usize = 40;

/// The arguments of each run `source`'s header names, in order; empty where it names none (or
/// a line does not split, e.g. an unclosed quote).
pub fn header_runs(source: &str) -> Vec<Vec<String>> {
    let comments: Vec<Option<&str>> = (source.lines().take(HEADER_LINES))
        .map(|l| l.trim().strip_prefix("//"))
        .collect();
    let tagged: Vec<Vec<String>> = (comments.iter().flatten())
        .filter_map(|c| c.trim().strip_prefix("divlab-profile:"))
        .filter_map(shlex::split)
        .collect();
    if !tagged.is_empty() {
        return tagged;
    }
    let mut runs = Vec::new();
    for (i, comment) in comments.iter().enumerate() {
        let Some((_, command)) = comment.and_then(|c| c.split_once("divlab profile ")) else {
            continue;
        };
        let mut command = command.trim().to_owned();
        let mut next = comments[i + 1..].iter();
        while let Some(head) = command.strip_suffix('\\') {
            let Some(Some(more)) = next.next() else {
                break;
            };
            command = format!("{} {}", head.trim_end(), more.trim());
        }
        let Some(mut words) = shlex::split(command.trim_end_matches('\\')) else {
            continue;
        };
        if words.first().is_some_and(|w| !w.starts_with('-')) {
            words.remove(0);
        }
        runs.push(words);
    }
    runs
}

/// Points each relative `file:PATH` fill in `args` that does not name a file from here at the
/// first folder above `kernel` (the kernel's own folder first) where PATH does name one: the
/// repository's headers write them relative to the repository's root, and the app runs from
/// anywhere.
pub fn resolve_file_fills(args: &mut [String], kernel: &Path) {
    for word in args.iter_mut() {
        let Some((head, path)) = word.split_once("file:") else {
            continue;
        };
        let path = Path::new(path);
        if path.is_absolute() || path.exists() {
            continue;
        }
        let found = (kernel.ancestors().skip(1))
            .map(|dir| dir.join(path))
            .find(|candidate| candidate.is_file());
        if let Some(found) = found {
            *word = format!("{head}file:{}", found.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{header_runs, resolve_file_fills};

    #[test]
    fn tagged_lines_are_runs_each() {
        let source = "// divlab-profile: --dispatch 4 --entry a\n// divlab-profile:\n\
                      // divlab profile k.wgsl --dispatch 9\n@compute @workgroup_size(1) fn a() {}";
        assert_eq!(
            header_runs(source),
            [vec!["--dispatch", "4", "--entry", "a"], vec![]]
        );
    }

    #[test]
    fn a_command_line_continues_over_comment_lines_and_drops_its_file() {
        let source = "// A blur.\n//\n//   divlab profile assets/k.wgsl --texture src=gradient \\\n\
                      //       --dispatch 8,8 --save 'dst=my out.png'\n@compute";
        assert_eq!(
            header_runs(source),
            [vec![
                "--texture",
                "src=gradient",
                "--dispatch",
                "8,8",
                "--save",
                "dst=my out.png"
            ]]
        );
        assert!(header_runs("@compute @workgroup_size(1) fn main() {}").is_empty());
    }

    #[test]
    fn a_relative_file_fill_is_found_above_the_kernel() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("assets/kernels")).unwrap();
        std::fs::write(root.path().join("assets/picture.png"), b"png").unwrap();
        let kernel = root.path().join("assets/kernels/edges.wgsl");
        let mut args = [
            "--texture",
            "src=file:assets/picture.png",
            "--buffer",
            "b=file:none.bin",
        ]
        .map(str::to_owned);
        resolve_file_fills(&mut args, &kernel);
        let found = root.path().join("assets/picture.png");
        assert_eq!(args[1], format!("src=file:{}", found.display()));
        assert_eq!(
            args[3], "b=file:none.bin",
            "a file found nowhere is left as written"
        );
    }
}
