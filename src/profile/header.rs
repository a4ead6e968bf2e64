//! The runs a kernel's header comment names, in the two forms the repository's kernels write
//! (and `scripts/profile-corpus` reads):
//! - `// divlab-profile: ARGS`, one line per run (`// divlab-profile:` alone: no arguments);
//! - failing those, a command line `// divlab profile FILE ARGS`, continued on the next comment
//!   line where it ends in `\`; FILE (the kernel itself) is left out.
//!
//! Words are split as a POSIX shell splits them (`shlex`), as the script does.

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

#[cfg(test)]
mod tests {
    use super::header_runs;

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
}
