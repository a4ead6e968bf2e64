//! `divlab compare`'s outputs: an aligned table for the terminal, Markdown (bold where a verdict
//! differs) and CSV (one row per table row, one column per file, numbers in full).

use std::fmt::Write as _;

use crate::report::{Cell, Comparison, Mark, Observation, Row, RowKind};

/// What a cell shows when its file lacks the experiment or the value.
pub const MISSING: &str = "—";

/// The legend under the terminal table.
const TEXT_LEGEND: &str = "! the check's verdict differs between files; * a figure that check \
     is decided on; — not in that file; n in a check: a number the files word differently";

/// The legend under the Markdown tables.
const MARKDOWN_LEGEND: &str = "**Bold**: a check whose verdict differs between files, and the \
     figures it is decided on. —: not in that file. *n* in a check: a number the files word \
     differently (such as the subgroup size).";

/// The heading over the observations.
pub(crate) const OBSERVATIONS_HEADING: &str = "observations that differ (not_guaranteed: WGSL \
     promises nothing, so each device's behaviour is information, not a failure)";

impl Cell {
    /// The cell as the tables show it: numbers rounded, `—` when missing.
    pub fn shown(&self) -> String {
        match self {
            Cell::Missing => MISSING.to_owned(),
            Cell::Text(t) => t.clone(),
            Cell::Number { value, decimals } => format!("{value:.decimals$}"),
        }
    }

    /// The cell for CSV: numbers in full (shortest round trip), empty when missing, so that a
    /// spreadsheet reads the column as numbers.
    fn csv(&self) -> String {
        match self {
            Cell::Missing => String::new(),
            Cell::Text(t) => t.clone(),
            Cell::Number { value, .. } => value.to_string(),
        }
    }
}

impl Comparison {
    /// The comparison for a terminal: aligned columns, `!`/`*` marks and a legend.
    pub fn to_text(&self) -> String {
        let mut out = format!("divlab compare: {}\n\n", self.headline());
        text_table(&mut out, &self.labels, &self.adapter);
        for t in &self.experiments {
            let _ = writeln!(out, "\n{}: {}", t.id, t.title);
            text_table(&mut out, &self.labels, &t.rows);
        }
        if !self.observations.is_empty() {
            let _ = writeln!(out, "\n{OBSERVATIONS_HEADING}");
            for o in &self.observations {
                let _ = writeln!(out, "{}: {}", o.experiment, o.check);
                let details = self.labels.iter().zip(&o.details).map(|(label, detail)| {
                    vec![
                        label.clone(),
                        detail.as_deref().unwrap_or(MISSING).to_owned(),
                    ]
                });
                for line in columns(&[(4, 1), (0, 0)], details) {
                    let _ = writeln!(out, "{line}");
                }
                if let Some(note) = o.sampling_note(&self.labels) {
                    let _ = writeln!(out, "    note: {note}");
                }
            }
        }
        let _ = writeln!(out, "\n{TEXT_LEGEND}");
        out
    }

    /// The comparison as Markdown: one table for the adapters, one per experiment, and one for
    /// the observations that differ. The README's comparison is this over `assets/reference/`.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("Comparison of {}.\n\n**Adapters**\n\n", self.headline());
        markdown_table(&mut out, &self.labels, &self.adapter);
        for t in &self.experiments {
            let _ = writeln!(out, "\n**{}**: {}\n", md(&t.id), md(&t.title));
            markdown_table(&mut out, &self.labels, &t.rows);
        }
        if !self.observations.is_empty() {
            let _ = writeln!(out, "\n**{OBSERVATIONS_HEADING}**\n");
            out.push_str("| experiment | check |");
            for label in &self.labels {
                let _ = write!(out, " {} |", md(label));
            }
            let _ = writeln!(out, "\n|---|---|{}", "---|".repeat(self.labels.len()));
            for o in &self.observations {
                let _ = write!(out, "| {} | {} |", md(&o.experiment), md(&o.check));
                for d in &o.details {
                    let _ = write!(out, " {} |", d.as_deref().map_or(MISSING.to_owned(), md));
                }
                out.push('\n');
            }
            for o in &self.observations {
                if let Some(note) = o.sampling_note(&self.labels) {
                    let _ = writeln!(
                        out,
                        "\n{}: {}: {}",
                        md(&o.experiment),
                        md(&o.check),
                        md(&note)
                    );
                }
            }
        }
        let _ = writeln!(out, "\n{MARKDOWN_LEGEND}");
        out
    }

    /// The comparison as CSV: `experiment,kind,key,row,<one column per file>,mark`, keyed by
    /// (`experiment`, `kind`, `key`), stable ids that never change with the display text in
    /// `row` (docs/compare.md lists the values). Adapter rows have an empty experiment;
    /// observations that differ have kind `observation`.
    pub fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let head = ["experiment", "kind", "key", "row"].map(str::to_owned);
        let mut header = head.to_vec();
        header.extend(self.labels.iter().cloned());
        header.push("mark".to_owned());
        let mut records = vec![header];
        let record = |experiment: &str, kind: &str, key: &str, label: &str| {
            [experiment, kind, key, label].map(str::to_owned).to_vec()
        };
        let row_record = |experiment: &str, row: &Row| {
            let mut r = record(experiment, kind_name(row.kind), &row.key, &row.label);
            r.extend(row.cells.iter().map(Cell::csv));
            r.push(mark_name(row.mark).to_owned());
            r
        };
        records.extend(self.adapter.iter().map(|row| row_record("", row)));
        for t in &self.experiments {
            records.extend(t.rows.iter().map(|row| row_record(&t.id, row)));
        }
        records.extend(self.observations.iter().map(|o: &Observation| {
            let mut r = record(&o.experiment, "observation", &o.key, &o.check);
            r.extend(o.details.iter().map(|d| d.clone().unwrap_or_default()));
            r.push(String::new());
            r
        }));
        for r in &records {
            w.write_record(r).expect("writing to memory cannot fail");
        }
        String::from_utf8(w.into_inner().expect("writing to memory cannot fail"))
            .expect("CSV of UTF-8 strings is UTF-8")
    }

    /// "3 result files; 2 checks have different verdicts; 1 observation differs".
    pub(crate) fn headline(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        format!(
            "{}; {} different verdicts; {}",
            plural(self.labels.len(), "result file", "result files"),
            plural(self.differing_verdicts(), "check has", "checks have"),
            plural(
                self.observations.len(),
                "observation differs",
                "observations differ"
            )
        )
    }
}

/// CSV's `kind` column.
fn kind_name(kind: RowKind) -> &'static str {
    match kind {
        RowKind::Adapter => "adapter",
        RowKind::Status => "status",
        RowKind::Figure => "figure",
        RowKind::VerdictCount => "verdict_count",
        RowKind::Verdict => "verdict",
    }
}

/// CSV's `mark` column.
fn mark_name(mark: Mark) -> &'static str {
    match mark {
        Mark::None => "",
        Mark::VerdictDiffers => "verdict_differs",
        Mark::BehindVerdict => "behind_verdict",
    }
}

/// Display width in terminal columns (unicode-width): adapter names come from drivers, and a
/// CJK or emoji character takes two columns, a combining mark none.
fn display_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// The widest of `texts`, in columns.
fn width<'a>(texts: impl Iterator<Item = &'a str>) -> usize {
    texts.map(display_width).max().unwrap_or(0)
}

/// Plain columns padded by display width, the one way divlab pads a text table (comfy-table,
/// as `divlab adapters`): each column's (left, right) padding, then the rows, each line's
/// trailing spaces trimmed.
fn columns(padding: &[(u16, u16)], rows: impl IntoIterator<Item = Vec<String>>) -> Vec<String> {
    let rows: Vec<Vec<String>> = rows.into_iter().collect();
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::NOTHING);
    for row in &rows {
        table.add_row(row);
    }
    for (c, (column, &(left, right))) in table.column_iter_mut().zip(padding).enumerate() {
        // comfy-table gives a column of empty cells a width of 1: one space less padding
        // keeps it as narrow as its (empty) text.
        let empty = rows
            .iter()
            .all(|row| row.get(c).is_none_or(String::is_empty));
        column.set_padding(match (empty, left, right) {
            (true, _, 1..) => (left, right - 1),
            (true, 1.., 0) => (left - 1, right),
            _ => (left, right),
        });
    }
    table.lines().map(|l| l.trim_end().to_owned()).collect()
}

/// An aligned table. A check's wording can be long: where it is wider than the figure labels it
/// gets a line of its own, with its cells under the columns on the next.
fn text_table(out: &mut String, labels: &[String], rows: &[Row]) {
    let label_width = width(
        rows.iter()
            .filter(|r| r.kind != RowKind::Verdict)
            .map(|r| r.label.as_str()),
    );
    // The mark, then the label one space after it, then the cells two spaces apart.
    let mut padding = vec![(0, 0), (1, 1)];
    padding.resize(labels.len() + 2, (1, 1));
    let mut own_lines = vec![None];
    let mut table = vec![
        [String::new(), String::new()]
            .into_iter()
            .chain(labels.iter().cloned())
            .collect(),
    ];
    for row in rows {
        let mark = match row.mark {
            Mark::None => ' ',
            Mark::VerdictDiffers => '!',
            Mark::BehindVerdict => '*',
        };
        let long = display_width(&row.label) > label_width;
        own_lines.push(long.then(|| format!("{mark} {}", row.label)));
        let label = if long {
            String::new()
        } else {
            row.label.clone()
        };
        table.push(
            [mark.to_string(), label]
                .into_iter()
                .chain(row.cells.iter().map(Cell::shown))
                .collect(),
        );
    }
    for (own_line, line) in own_lines.into_iter().zip(columns(&padding, table)) {
        if let Some(own_line) = own_line {
            let _ = writeln!(out, "{own_line}");
        }
        let _ = writeln!(out, "{line}");
    }
}

fn markdown_table(out: &mut String, labels: &[String], rows: &[Row]) {
    out.push_str("| |");
    for label in labels {
        let _ = write!(out, " {} |", md(label));
    }
    let _ = writeln!(out, "\n|---|{}", "---|".repeat(labels.len()));
    for row in rows {
        let bold = |s: String| {
            if row.mark == Mark::None || s == MISSING {
                s
            } else {
                format!("**{s}**")
            }
        };
        let _ = write!(out, "| {} |", bold(md(&row.label)));
        for cell in &row.cells {
            let _ = write!(out, " {} |", bold(md(&cell.shown())));
        }
        out.push('\n');
    }
}

/// Text made safe for a Markdown table cell: no column breaks, no emphasis, no HTML tags.
pub(crate) fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '|' | '*' | '\\' | '`' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            '<' if chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?')) =>
            {
                out.push_str("&lt;");
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_by_display_width() {
        assert_eq!(display_width("R²"), 2);
        assert_eq!(display_width("—"), 1);
        assert_eq!(display_width("日本"), 4);
        let rows = [
            vec!["日本".to_owned(), "x".to_owned()],
            vec!["ab".to_owned(), "y".to_owned()],
        ];
        assert_eq!(columns(&[(0, 1), (0, 0)], rows), ["日本 x", "ab   y"]);
        let labels = ["日本のGPU".to_owned(), "plain".to_owned()];
        let rows = [Row {
            key: "status".to_owned(),
            label: "status".to_owned(),
            kind: RowKind::Status,
            cells: vec![Cell::Text("ok".to_owned()), Cell::Text("ok".to_owned())],
            mark: Mark::None,
        }];
        let mut out = String::new();
        text_table(&mut out, &labels, &rows);
        // The second column starts at the same display column on every line.
        let starts: Vec<usize> = out
            .lines()
            .map(|l| {
                let at = l.rfind(if l.contains("plain") { "plain" } else { "ok" });
                display_width(&l[..at.expect("a second column")])
            })
            .collect();
        assert_eq!(starts[0], starts[1], "{out}");
    }

    fn fuzz_observation(counts: &[Option<&str>]) -> Observation {
        Observation {
            experiment: "fuzz.reconvergence".to_owned(),
            key: "maximal".to_owned(),
            check: "maximal style: ballots match the simulation".to_owned(),
            details: (counts.iter())
                .map(|c| c.map(|c| format!("observed: {c} programs matched; failing seeds []")))
                .collect(),
        }
    }

    /// 8 of 8 against 815 of 1000 is what 0.815^8 = 19% of small runs show; 24 of 24 is not.
    #[test]
    fn a_smaller_run_is_weighed_against_the_largest_runs_rate() {
        let labels = ["small.json", "big.json", "mid.json", "none.json"].map(str::to_owned);
        let o = fuzz_observation(&[Some("8/8"), Some("815/1000"), Some("24/24"), None]);
        let note = o.sampling_note(&labels).expect("the totals differ");
        assert!(
            note.contains("At big.json's rate (815/1000 matched)"),
            "{note}"
        );
        assert!(
            note.contains("small.json: all 8 matching, p = 0.19 (within sampling"),
            "{note}"
        );
        assert!(
            note.contains("mid.json: all 24 matching, p = 0.0074 (beyond sampling"),
            "{note}"
        );
        let fewer = fuzz_observation(&[Some("5/10"), Some("900/1000")]);
        let note = fewer.sampling_note(&labels[..2]).unwrap();
        assert!(
            note.contains("small.json: 5 or fewer of 10 matching, p = 0.0016"),
            "{note}"
        );
        let same_totals = fuzz_observation(&[Some("1000/1000"), Some("815/1000")]);
        assert_eq!(same_totals.sampling_note(&labels[..2]), None);
    }
}
