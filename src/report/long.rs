//! The long (tidy) export: one row per (device, backend, experiment, metric or verdict), every
//! row carrying the identity of the device and the run, so that the exports of any number of
//! result files concatenate into one table that a notebook, DuckDB or a spreadsheet reads
//! without a parser of ours. `divlab bench --csv` writes it for one run and `divlab compare
//! FILE... --long` for many; docs/results.md lists the columns and their types.

use crate::report::{ExperimentStatus, ResultDocument};

/// The type of a column: what a reader may parse every non-empty cell of it as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// A whole number, written without a decimal point (`8`, `4318`); empty where absent.
    Integer,
    /// A number in shortest round-trip form with a decimal point (`8.0`, `0.3319458824172101`,
    /// `1e-7`); empty where absent.
    Number,
    /// An RFC 3339 UTC time, e.g. `2026-11-29T13:53:30Z`.
    Timestamp,
    /// Text.
    Text,
}

impl ColumnType {
    /// The name docs/results.md gives the type.
    pub fn name(self) -> &'static str {
        match self {
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Timestamp => "timestamp",
            Self::Text => "string",
        }
    }
}

/// One column of the long export.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// Its header.
    pub name: &'static str,
    /// What every non-empty cell parses as.
    pub kind: ColumnType,
    /// How a row fills it.
    cell: fn(&Fact<'_>) -> String,
}

/// What a row is made from: the document (the device and the run), the experiment, and the
/// metric, verdict or status it states.
struct Fact<'a> {
    doc: &'a ResultDocument,
    experiment: &'a crate::report::ExperimentResult,
    what: What<'a>,
}

/// The row's subject.
enum What<'a> {
    Metric(&'a str, f64),
    Verdict(&'a crate::report::Verdict),
    /// An experiment that did not finish `ok`: its `status_detail`.
    StatusDetail,
}

fn int(value: impl ToString) -> String {
    value.to_string()
}

fn optional(value: Option<u32>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

/// The columns, in order: the device and the run first, then the experiment, then the fact.
pub const LONG_COLUMNS: [Column; 22] = {
    use ColumnType::{Integer, Number, Text, Timestamp};
    const fn c(name: &'static str, kind: ColumnType, cell: fn(&Fact<'_>) -> String) -> Column {
        Column { name, kind, cell }
    }
    [
        c("adapter", Text, |f| f.doc.adapter.name.clone()),
        c("backend", Text, |f| f.doc.adapter.backend.clone()),
        c("vendor", Integer, |f| int(f.doc.adapter.vendor)),
        c("device", Integer, |f| int(f.doc.adapter.device)),
        c("device_type", Text, |f| f.doc.adapter.device_type.clone()),
        c("driver", Text, |f| f.doc.adapter.driver.clone()),
        c("driver_info", Text, |f| f.doc.adapter.driver_info.clone()),
        c("subgroup_size", Integer, |f| {
            optional(f.doc.adapter.observed_subgroup_size)
        }),
        c("subgroup_min_size", Integer, |f| {
            int(f.doc.adapter.subgroup_min_size)
        }),
        c("subgroup_max_size", Integer, |f| {
            int(f.doc.adapter.subgroup_max_size)
        }),
        c("inferred_subgroup_width", Integer, |f| {
            optional(f.doc.adapter.inferred_subgroup_width)
        }),
        c("timing_source", Text, |f| {
            f.doc.adapter.timing_source.as_str().to_owned()
        }),
        c("divlab_version", Text, |f| f.doc.divlab_version.clone()),
        c("created", Timestamp, |f| f.doc.created.clone()),
        c("experiment", Text, |f| f.experiment.id.clone()),
        c("experiment_status", Text, |f| {
            f.experiment.status.as_str().to_owned()
        }),
        c("kind", Text, |f| {
            match f.what {
                What::Metric(..) => "metric",
                What::Verdict(_) => "verdict",
                What::StatusDetail => "status_detail",
            }
            .to_owned()
        }),
        c("key", Text, |f| match &f.what {
            What::Metric(name, _) => (*name).to_owned(),
            What::Verdict(v) => v.key.clone(),
            What::StatusDetail => String::new(),
        }),
        c("value", Number, |f| match f.what {
            // With a decimal point (`8.0`), as the JSON has it: a reader infers a float column
            // even from rows whose values are all whole.
            What::Metric(_, value) => format!("{value:?}"),
            _ => String::new(),
        }),
        c("status", Text, |f| match &f.what {
            What::Verdict(v) => v.status.as_str().to_owned(),
            _ => String::new(),
        }),
        c("check", Text, |f| match &f.what {
            What::Verdict(v) => v.check.clone(),
            _ => String::new(),
        }),
        c("detail", Text, |f| match &f.what {
            What::Verdict(v) => v.detail.clone(),
            What::StatusDetail => f.experiment.status_detail.clone(),
            What::Metric(..) => String::new(),
        }),
    ]
};

/// The header row.
pub fn long_header() -> [&'static str; LONG_COLUMNS.len()] {
    LONG_COLUMNS.map(|c| c.name)
}

/// The long export of `docs`, with one header row: per document and experiment (in run order)
/// its metrics (sorted by name), its verdicts (in the order made), and, for an experiment that
/// did not finish `ok`, one `status_detail` row.
pub fn long_csv<'a>(docs: impl IntoIterator<Item = &'a ResultDocument>) -> Vec<u8> {
    let facts = docs.into_iter().flat_map(|doc| {
        doc.experiments.iter().flat_map(move |experiment| {
            let metrics = (experiment.metrics.iter()).map(|(k, v)| What::Metric(k, *v));
            let verdicts = experiment.verdicts.iter().map(What::Verdict);
            let status = (experiment.status != ExperimentStatus::Ok).then_some(What::StatusDetail);
            (metrics.chain(verdicts).chain(status)).map(move |what| Fact {
                doc,
                experiment,
                what,
            })
        })
    });
    csv_table(
        long_header(),
        facts.map(|fact| LONG_COLUMNS.map(|c| (c.cell)(&fact))),
    )
}

/// A CSV table in memory: the header row, then `rows`.
pub fn csv_table<const N: usize>(
    header: [&str; N],
    rows: impl IntoIterator<Item = [String; N]>,
) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let header = std::iter::once(header.map(str::to_owned));
    for row in header.chain(rows) {
        writer
            .write_record(&row)
            .expect("writing to memory cannot fail");
    }
    writer.into_inner().expect("writing to memory cannot fail")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_names_are_unique_and_typed_as_documented() {
        let names = long_header();
        let mut sorted = names.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "{names:?}");
        let docs = include_str!("../../docs/results.md");
        for c in LONG_COLUMNS {
            let row = format!("| `{}` | {} |", c.name, c.kind.name());
            assert!(docs.contains(&row), "docs/results.md lacks `{row}`");
        }
    }
}
