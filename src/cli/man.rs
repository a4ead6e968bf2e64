//! `divlab man`: man pages from the same clap definition as `--help` (clap_mangen), one for
//! divlab and one per subcommand (`divlab-bench(1)`, ...). Beside clap_mangen's NAME, SYNOPSIS,
//! DESCRIPTION, OPTIONS and COMMANDS, each page has EXIT STATUS (the rows of
//! docs/exit-codes.md that name the command), the paragraphs of its `after_help` as sections
//! of their own (ENVIRONMENT, RULES, ...), EXAMPLES and SEE ALSO.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Command;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use crate::examples;

/// The one table of exit codes; its third column names the commands each code applies to.
const EXIT_CODES: &str = include_str!("../../docs/exit-codes.md");

/// One row of docs/exit-codes.md: the code, what it means (Markdown's backticks dropped), and
/// the commands (`all`, or names).
struct ExitRow {
    code: String,
    meaning: String,
    commands: Vec<String>,
}

fn exit_rows() -> Vec<ExitRow> {
    EXIT_CODES
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
            let [code, meaning, commands] = cells[..] else {
                return None;
            };
            let code = code.trim();
            code.parse::<u8>().ok()?;
            Some(ExitRow {
                code: code.to_owned(),
                meaning: plain(meaning.trim()),
                commands: commands.split(',').map(|c| c.trim().to_owned()).collect(),
            })
        })
        .collect()
}

/// Markdown as plain text: backticks dropped, `[text](target)` as its text.
fn plain(markdown: &str) -> String {
    let mut out = String::new();
    let mut rest = markdown.replace('`', "");
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find("](").map(|i| open + i);
        let end = close.and_then(|c| rest[c..].find(')').map(|i| c + i));
        let (Some(close), Some(end)) = (close, end) else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&rest[open + 1..close]);
        rest = rest[end + 1..].to_owned();
    }
    out.push_str(&rest);
    out
}

/// The page of `cmd`, a built command (`Command::build`); `sub` is the subcommand's name, or
/// `None` for divlab's own page.
fn render(cmd: &Command, sub: Option<&str>, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let man = Man::new(cmd.clone());
    man.render_title(w)?;
    man.render_name_section(w)?;
    man.render_synopsis_section(w)?;
    man.render_description_section(w)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(w)?;
    }
    if cmd.has_subcommands() {
        man.render_subcommands_section(w)?;
    }
    let mut roff = Roff::new();
    exit_status(&mut roff, sub);
    if let Some(after) = cmd.get_after_help() {
        after_help_sections(&mut roff, &after.to_string());
    }
    examples_section(&mut roff, sub);
    see_also(&mut roff, cmd, sub);
    roff.to_writer(w)?;
    // clap_mangen's VERSION section panics on a command without a version (a subcommand).
    if cmd.get_version().or(cmd.get_long_version()).is_some() {
        man.render_version_section(w)?;
    }
    Ok(())
}

/// EXIT STATUS: every code that applies to the command, as docs/exit-codes.md words it.
fn exit_status(roff: &mut Roff, sub: Option<&str>) {
    roff.control("SH", ["EXIT STATUS"]);
    for row in exit_rows() {
        let applies = sub.is_none_or(|s| row.commands.iter().any(|c| c == "all" || c == s));
        if !applies {
            continue;
        }
        roff.control("TP", []);
        roff.text([bold(row.code.as_str())]);
        let mut meaning = row.meaning.clone();
        if sub.is_none() && row.commands != ["all"] {
            meaning.push_str(&format!(" ({})", row.commands.join(", ")));
        }
        roff.text([roman(meaning)]);
    }
}

/// The paragraphs of `after_help` as sections: `Heading:` on a line of its own followed by
/// `  NAME  text` entries becomes a list, `Heading: text` a paragraph. Exit codes and examples
/// have sections of their own, from their sources, and are left out here.
fn after_help_sections(roff: &mut Roff, text: &str) {
    for paragraph in text.split("\n\n") {
        let Some((heading, rest)) = paragraph.split_once(':') else {
            continue;
        };
        let title = heading.split(" (").next().unwrap_or(heading).trim();
        if title.starts_with("Exit codes") || title == "Examples" {
            continue;
        }
        roff.control("SH", [title.to_uppercase().as_str()]);
        let mut entries: Vec<(String, String)> = Vec::new();
        let mut prose = String::new();
        for line in rest.lines() {
            let entry = line
                .strip_prefix("  ")
                .filter(|l| !l.starts_with(' '))
                .and_then(|l| l.split_once("  "));
            match entry {
                Some((name, what)) => entries.push((name.to_owned(), what.trim().to_owned())),
                None if !entries.is_empty() && line.starts_with("   ") => {
                    let last = entries.last_mut().expect("checked non-empty");
                    last.1.push(' ');
                    last.1.push_str(line.trim());
                }
                None => {
                    prose.push_str(line.trim());
                    prose.push(' ');
                }
            }
        }
        if !prose.trim().is_empty() {
            roff.text([roman(prose.trim())]);
        }
        for (name, what) in entries {
            roff.control("TP", []);
            roff.text([bold(name)]);
            roff.text([roman(what)]);
        }
    }
}

fn examples_section(roff: &mut Roff, sub: Option<&str>) {
    let list: Vec<&examples::Example> = match sub {
        Some(sub) => examples::examples(sub).iter().collect(),
        // divlab's own page: the first example of each command.
        None => examples::EXAMPLES
            .iter()
            .filter_map(|(_, list)| list.first())
            .collect(),
    };
    if list.is_empty() {
        return;
    }
    roff.control("SH", ["EXAMPLES"]);
    for e in list {
        roff.text([roman(e.what)]);
        roff.control("PP", []);
        roff.control("RS", ["4"]);
        roff.control("nf", []);
        roff.text([bold(e.command)]);
        roff.control("fi", []);
        roff.control("RE", []);
        roff.control("PP", []);
    }
}

fn see_also(roff: &mut Roff, cmd: &Command, sub: Option<&str>) {
    roff.control("SH", ["SEE ALSO"]);
    let pages: Vec<String> = match sub {
        Some(_) => vec!["divlab(1)".to_owned()],
        None => cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| format!("divlab-{}(1)", s.get_name()))
            .collect(),
    };
    roff.text([roman(format!(
        "{}. The guide: docs/README.md in divlab's repository.",
        pages.join(", ")
    ))]);
}

/// divlab's own page (`divlab man`).
pub(crate) fn main_page(cli: Command, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    render(&cli, None, w)
}

/// Writes divlab.1 and divlab-SUBCOMMAND.1 for every subcommand into `dir` (made if missing),
/// each atomically; returns the paths written.
pub(crate) fn write_pages(cli: Command, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("making {}", dir.display()))?;
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    let mut pages = vec![("divlab.1".to_owned(), cli.clone(), None)];
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name().to_owned();
        pages.push((format!("divlab-{name}.1"), sub.clone(), Some(name)));
    }
    let mut written = Vec::new();
    for (file, cmd, sub) in pages {
        let mut bytes = Vec::new();
        render(&cmd, sub.as_deref(), &mut bytes).context("rendering a man page")?;
        bytes.flush().context("rendering a man page")?;
        let path = dir.join(file);
        divlab::report::write_atomic(&path, &bytes)
            .with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_code_table_has_every_code_and_its_commands() {
        let rows = exit_rows();
        let codes: Vec<&str> = rows.iter().map(|r| r.code.as_str()).collect();
        assert_eq!(codes, ["0", "1", "2", "3", "4"]);
        assert!(rows[4].commands.iter().any(|c| c == "profile"));
        assert!(rows[3].meaning.contains("timed out"), "{}", rows[3].meaning);
        assert!(!rows[1].meaning.contains('`'));
        assert_eq!(
            plain("see [compare](compare.md#x) and `y`"),
            "see compare and y"
        );
    }
}
