//! What a fuzz campaign reports: the pass-rate table `divlab fuzz` prints and the JSON
//! document `divlab fuzz --json` writes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Campaign, StyleTally};
use crate::report::AdapterRecord;

/// The fuzz document's format version.
pub const FUZZ_SCHEMA_VERSION: u32 = 2;

/// `divlab fuzz --json`: the campaign, the adapter it ran on, and each style's tally.
#[derive(Clone, Debug, Serialize)]
pub struct FuzzDocument {
    /// [`FUZZ_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The divlab version that wrote the document.
    pub divlab_version: String,
    /// The adapter, as a result document records it (nothing measured on it: the fuzzer
    /// does not run the subgroup-size probe). Since schema 2; a name, a backend and a
    /// driver string before.
    pub adapter: AdapterRecord,
    /// The first seed.
    pub start: u64,
    /// How many seeds ran, each under every style.
    pub seeds: u64,
    /// small, medium or large.
    pub size: String,
    /// One entry per style, in the order they ran.
    pub styles: Vec<StyleJson>,
    /// The directory the reproducers were written under (`DIR/<seed>/<style>/`); `null` when
    /// none was written (no `--out`, or no failure).
    pub reproducers: Option<PathBuf>,
}

/// One style's tally.
#[derive(Clone, Debug, Serialize)]
pub struct StyleJson {
    /// maximal, subgroup or workgroup.
    pub style: &'static str,
    /// Programs run.
    pub programs: u64,
    /// Programs whose every checked ballot matched the simulation.
    pub passed: u64,
    /// `passed / programs`, from 0 to 1.
    pub pass_rate: f64,
    /// Each failing program, in seed order.
    pub failures: Vec<FailureJson>,
}

/// One failing program.
#[derive(Clone, Debug, Serialize)]
pub struct FailureJson {
    /// The seed that generated it: `divlab fuzz --start SEED --seeds 1` runs it again.
    pub seed: u64,
    /// Where its shrunk reproducer is (`null` without --out, or past the first
    /// [`super::MAX_REPRODUCERS`] failures of the style).
    pub reproducer: Option<PathBuf>,
    /// The shrunk program's line count, without the fixed prelude.
    pub reproducer_lines: Option<usize>,
}

impl FuzzDocument {
    /// The document for a finished campaign on `adapter`.
    pub fn new(campaign: &Campaign, tallies: &[StyleTally], adapter: AdapterRecord) -> Self {
        let size = format!("{:?}", campaign.size).to_lowercase();
        let styles = tallies
            .iter()
            .map(|t| StyleJson {
                style: t.style.name(),
                programs: t.programs,
                passed: t.passed,
                pass_rate: t.pass_rate(),
                failures: t
                    .failures
                    .iter()
                    .map(|&(seed, lines)| FailureJson {
                        seed,
                        reproducer: lines
                            .and(campaign.out.as_deref())
                            .map(|dir| dir.join(seed.to_string()).join(t.style.name())),
                        reproducer_lines: lines,
                    })
                    .collect(),
            })
            .collect();
        FuzzDocument {
            schema_version: FUZZ_SCHEMA_VERSION,
            divlab_version: env!("CARGO_PKG_VERSION").to_owned(),
            adapter,
            start: campaign.start,
            seeds: campaign.seeds,
            size,
            styles,
            reproducers: reproducers_written(campaign, tallies).map(Path::to_path_buf),
        }
    }

    /// The document as pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("the fuzz document serializes");
        text.push('\n');
        text
    }
}

/// `--out`'s directory where at least one reproducer was written under it, else `None`.
pub fn reproducers_written<'a>(campaign: &'a Campaign, tallies: &[StyleTally]) -> Option<&'a Path> {
    let written = tallies
        .iter()
        .flat_map(|t| &t.failures)
        .any(|(_, lines)| lines.is_some());
    campaign.out.as_deref().filter(|_| written)
}

/// The pass-rate table `divlab fuzz` prints: one row per style.
pub fn pass_rate_table(campaign: &Campaign, tallies: &[StyleTally]) -> String {
    let mut out = format!(
        "seeds {}..{}, size {:?}\n{:<10} {:>8} {:>8} {:>9}  failing seeds (reproducer lines)\n",
        campaign.start,
        campaign.start + campaign.seeds,
        campaign.size,
        "style",
        "programs",
        "passed",
        "pass rate"
    );
    for t in tallies {
        let failing: Vec<String> = t
            .failures
            .iter()
            .take(12)
            .map(|(seed, lines)| match lines {
                Some(n) => format!("{seed} ({n})"),
                None => seed.to_string(),
            })
            .collect();
        let more = t.failures.len().saturating_sub(12);
        let _ = writeln!(
            out,
            "{:<10} {:>8} {:>8} {:>8.1}%  {}{}",
            t.style.name(),
            t.programs,
            t.passed,
            100.0 * t.pass_rate(),
            failing.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
    }
    // Only where some were written: with --out and no failure the directory stays empty.
    if let Some(dir) = reproducers_written(campaign, tallies) {
        let _ = writeln!(
            out,
            "reproducers: {}",
            dir.join("<seed>/<style>/").display()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::{Size, Style};

    fn campaign(out: Option<&str>) -> Campaign {
        Campaign {
            start: 0,
            seeds: 2,
            styles: vec![Style::Maximal],
            size: Size::Small,
            out: out.map(PathBuf::from),
            shrink_attempts: 0,
        }
    }

    fn tally(failures: Vec<(u64, Option<usize>)>) -> StyleTally {
        StyleTally {
            style: Style::Maximal,
            programs: 2,
            passed: 2 - failures.len() as u64,
            failures,
        }
    }

    /// `reproducers: repro//<seed>/<style>/` was printed after a run that wrote none.
    #[test]
    fn the_reproducers_line_only_when_some_were_written() {
        let none = [tally(vec![])];
        assert!(!pass_rate_table(&campaign(Some("repro/")), &none).contains("reproducers"));
        let one = [tally(vec![(1, Some(7))])];
        let table = pass_rate_table(&campaign(Some("repro/")), &one);
        assert!(
            table.ends_with("reproducers: repro/<seed>/<style>/\n"),
            "{table}"
        );
        assert!(
            !pass_rate_table(&campaign(None), &[tally(vec![(1, None)])]).contains("reproducers")
        );
    }
}
