//! Result documents from different devices, side by side: the model behind `divlab compare` and
//! `divlab report`. Rendering is in `compare_render.rs` (text, Markdown, CSV) and `html.rs`.
//!
//! Experiments match by id; verdicts by their check (`matching.rs`).

use std::collections::HashSet;

pub use crate::report::matching::VerdictRow;
use crate::report::matching::{match_verdicts, observation_kind};
use crate::report::{
    Catalog, ExperimentResult, ExperimentStatus, Figure, ResultDocument, Rule, VerdictStatus,
};

/// One cell of a comparison table.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// The file lacks the experiment or the value; shown as `—`.
    Missing,
    /// Text, shown as it is.
    Text(String),
    /// A number, shown with `decimals` decimals (CSV gives it in full).
    Number {
        /// The value.
        value: f64,
        /// Decimals for tables.
        decimals: usize,
    },
}

/// What a row holds; CSV's `kind` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// A property of the adapter or the run.
    Adapter,
    /// The experiment's status: ok, unsupported or error.
    Status,
    /// A key figure (a metric).
    Figure,
    /// How many verdicts have one status.
    VerdictCount,
    /// One check whose verdict differs between files.
    Verdict,
}

/// How a row is highlighted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Not highlighted.
    None,
    /// The same check has different verdicts in different files (`!`, bold, CSS `differs`).
    VerdictDiffers,
    /// A figure that a differing verdict is decided on (`*`).
    BehindVerdict,
}

/// One row of a comparison table: a stable key, a label and one cell per file.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// What the row is, in words that never change with the display text (CSV's `key`): the
    /// adapter field's name, `status`, the metric's name, the verdict status a count counts, or
    /// the verdict's key (its wording in files before keys).
    pub key: String,
    /// What the row shows.
    pub label: String,
    /// What kind of row it is.
    pub kind: RowKind,
    /// One cell per file, in file order.
    pub cells: Vec<Cell>,
    /// Its highlight.
    pub mark: Mark,
}

/// One experiment across the files.
#[derive(Clone, Debug, PartialEq)]
pub struct ExperimentTable {
    /// The experiment id.
    pub id: String,
    /// Its title, from the first file that has it.
    pub title: String,
    /// Its rule, from the first file that has it.
    pub rule: Rule,
    /// Status, key figures, verdict counts, then the checks whose verdicts differ.
    pub rows: Vec<Row>,
    /// Every check, matched across the files.
    pub verdicts: Vec<VerdictRow>,
}

/// A `not_guaranteed` check where devices did different kinds of things.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// The experiment id.
    pub experiment: String,
    /// The check's key, or its wording in files before keys.
    pub key: String,
    /// The check.
    pub check: String,
    /// What each file observed; `None` where it lacks the check.
    pub details: Vec<Option<String>>,
}

impl Observation {
    /// Where the files counted programs out of different totals (`24/24 programs matched`
    /// against `815/1000`): how likely each smaller count is at the largest file's rate, so that
    /// a difference a small sample can make by chance is told from one it cannot.
    pub fn sampling_note(&self, labels: &[String]) -> Option<String> {
        let counts: Vec<(usize, u64, u64)> = (self.details.iter().enumerate())
            .filter_map(|(i, d)| {
                let (matched, of) = programs_matched(d.as_deref()?)?;
                Some((i, matched, of))
            })
            .collect();
        let most = counts.iter().map(|c| c.2).max()?;
        let &(reference, matched, of) = counts.iter().find(|c| c.2 == most)?;
        let rate = matched as f64 / of as f64;
        let each: Vec<String> = (counts.iter())
            .filter(|c| c.2 < most)
            .map(|&(i, a, n)| {
                let above = a as f64 >= rate * n as f64;
                let p = crate::stats::binomial_tail(n, a, rate, above);
                let verdict = if p < 0.05 {
                    "beyond sampling: the devices differ"
                } else {
                    "within sampling: more programs would tell"
                };
                let count = match (a, above) {
                    _ if a == n => format!("all {n}"),
                    (0, _) => format!("none of {n}"),
                    (_, true) => format!("{a} or more of {n}"),
                    (_, false) => format!("{a} or fewer of {n}"),
                };
                let p = probability(p);
                format!("{}: {count} matching, p = {p} ({verdict})", labels[i])
            })
            .collect();
        (!each.is_empty()).then(|| {
            format!(
                "the files ran different numbers of programs. At {}'s rate ({matched}/{of} \
                 matched), the chance of each smaller file's count or one further out: {}",
                labels[reference],
                each.join("; ")
            )
        })
    }
}

/// `(A, N)` of a detail that says `A/N programs matched`.
fn programs_matched(detail: &str) -> Option<(u64, u64)> {
    let (head, _) = detail.split_once(" programs matched")?;
    let (a, n) = head.rsplit(' ').next()?.split_once('/')?;
    Some((a.parse().ok()?, n.parse().ok()?))
}

/// A probability as a reader takes it in: two significant figures, or `< 0.0001`.
fn probability(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".to_owned()
    } else {
        let decimals = (-p.log10()).floor().max(0.0) as usize + 2;
        format!("{p:.decimals$}")
    }
}

/// Several result documents side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// One label per file (its name), the column headers.
    pub labels: Vec<String>,
    /// Adapter, backend, driver, observed subgroup size, timing, version.
    pub adapter: Vec<Row>,
    /// One table per experiment id, in order of first appearance.
    pub experiments: Vec<ExperimentTable>,
    /// `not_guaranteed` checks whose observations differ in kind.
    pub observations: Vec<Observation>,
}

impl Comparison {
    /// Compares `(label, document)` pairs, in the order given, showing the key figures that
    /// `catalog` declares for each experiment.
    pub fn new(docs: &[(String, ResultDocument)], catalog: &Catalog) -> Self {
        let mut ids: Vec<&str> = Vec::new();
        let mut seen = HashSet::new();
        for (_, doc) in docs {
            for e in &doc.experiments {
                if seen.insert(e.id.as_str()) {
                    ids.push(&e.id);
                }
            }
        }
        let mut observations = Vec::new();
        let experiments = ids
            .into_iter()
            .map(|id| {
                let present: Vec<Option<&ExperimentResult>> = docs
                    .iter()
                    .map(|(_, doc)| doc.experiments.iter().find(|e| e.id == id))
                    .collect();
                let table = experiment_table(id, &present, catalog.figures(id));
                observations.extend(differing_observations(&table));
                table
            })
            .collect();
        Self {
            labels: docs.iter().map(|(label, _)| label.clone()).collect(),
            adapter: adapter_rows(docs),
            experiments,
            observations,
        }
    }

    /// How many checks have different verdicts in different files.
    pub fn differing_verdicts(&self) -> usize {
        self.experiments
            .iter()
            .flat_map(|t| &t.verdicts)
            .filter(|v| v.differs())
            .count()
    }

    /// How many checks have, in some file, a verdict other than file `baseline`'s. A check that
    /// one of the two files lacks is not counted: `compare` lists it as missing.
    pub fn verdicts_differing_from(&self, baseline: usize) -> usize {
        self.experiments
            .iter()
            .flat_map(|t| &t.verdicts)
            .filter(|v| v.differs_from(baseline))
            .count()
    }
}

/// An adapter row: `key`, `label`, and `f` of each document as text.
pub(crate) fn adapter_row(
    docs: &[(String, ResultDocument)],
    (key, label): (&str, &str),
    f: &dyn Fn(&ResultDocument) -> String,
) -> Row {
    Row {
        key: key.to_owned(),
        label: label.to_owned(),
        kind: RowKind::Adapter,
        cells: docs.iter().map(|(_, d)| Cell::Text(f(d))).collect(),
        mark: Mark::None,
    }
}

fn adapter_rows(docs: &[(String, ResultDocument)]) -> Vec<Row> {
    let row = |key: (&str, &str), f: &dyn Fn(&ResultDocument) -> String| adapter_row(docs, key, f);
    vec![
        row(("name", "adapter"), &|d| d.adapter.name.clone()),
        row(("backend", "backend"), &|d| d.adapter.backend.clone()),
        row(("device_type", "device type"), &|d| {
            d.adapter.device_type.clone()
        }),
        row(("driver", "driver"), &|d| {
            format!("{} {}", d.adapter.driver, d.adapter.driver_info)
                .trim()
                .to_owned()
        }),
        row(
            ("observed_subgroup_size", "subgroup size (observed)"),
            &|d| {
                d.adapter
                    .observed_subgroup_size
                    .map_or_else(|| "not measured".to_owned(), |s| s.to_string())
            },
        ),
        row(
            (
                "inferred_subgroup_width",
                "subgroup width (inferred from timing)",
            ),
            &|d| {
                d.adapter
                    .inferred_subgroup_width
                    .map_or_else(|| "—".to_owned(), |s| s.to_string())
            },
        ),
        row(("subgroup_sizes", "subgroup sizes (reported)"), &|d| {
            format!(
                "{}..{}",
                d.adapter.subgroup_min_size, d.adapter.subgroup_max_size
            )
        }),
        row(("timing_source", "timing"), &|d| {
            d.adapter.timing_source.as_str().to_owned()
        }),
        row(("divlab_version", "divlab version"), &|d| {
            d.divlab_version.clone()
        }),
        row(("created", "created"), &|d| d.created.clone()),
    ]
}

fn experiment_table(
    id: &str,
    present: &[Option<&ExperimentResult>],
    figures: &[Figure],
) -> ExperimentTable {
    let first = present
        .iter()
        .flatten()
        .next()
        .expect("every id comes from some file");
    let cells = |f: &dyn Fn(&ExperimentResult) -> Cell| -> Vec<Cell> {
        present.iter().map(|e| e.map_or(Cell::Missing, f)).collect()
    };
    let any_metric = |name: &str| {
        present
            .iter()
            .flatten()
            .any(|e| e.metrics.contains_key(name))
    };
    let metric_row = |label: String, metric: &str, decimals: usize, mark: Mark| Row {
        key: metric.to_owned(),
        label,
        kind: RowKind::Figure,
        cells: cells(&|e| {
            e.metrics
                .get(metric)
                .map_or(Cell::Missing, |&value| Cell::Number { value, decimals })
        }),
        mark,
    };
    let verdicts = match_verdicts(present);
    let differing: Vec<&VerdictRow> = verdicts.iter().filter(|v| v.differs()).collect();

    let mut rows = vec![Row {
        key: "status".to_owned(),
        label: "status".to_owned(),
        kind: RowKind::Status,
        cells: cells(&|e| Cell::Text(status_name(e.status).to_owned())),
        mark: Mark::None,
    }];
    for f in figures.iter().filter(|f| any_metric(f.key)) {
        let behind = f
            .decides
            .is_some_and(|key| differing.iter().any(|v| v.key == key));
        let mark = if behind {
            Mark::BehindVerdict
        } else {
            Mark::None
        };
        rows.push(metric_row(f.label.to_owned(), f.key, f.decimals, mark));
    }
    for status in VerdictStatus::ALL {
        let count = |e: &ExperimentResult| e.verdicts.iter().filter(|v| v.status == status).count();
        if present.iter().flatten().any(|e| count(e) > 0) {
            rows.push(Row {
                key: status.as_str().to_owned(),
                label: format!("verdicts: {}", status.as_str()),
                kind: RowKind::VerdictCount,
                cells: cells(&|e| Cell::Number {
                    value: count(e) as f64,
                    decimals: 0,
                }),
                mark: Mark::None,
            });
        }
    }
    for v in &differing {
        rows.push(Row {
            key: v.id().to_owned(),
            label: v.check.clone(),
            kind: RowKind::Verdict,
            cells: v
                .statuses
                .iter()
                .map(|s| s.map_or(Cell::Missing, |s| Cell::Text(s.as_str().to_owned())))
                .collect(),
            mark: Mark::VerdictDiffers,
        });
    }
    ExperimentTable {
        id: id.to_owned(),
        title: first.title.clone(),
        rule: first.rule.clone(),
        rows,
        verdicts,
    }
}

/// The status's name as in result files.
pub(crate) fn status_name(status: ExperimentStatus) -> &'static str {
    status.as_str()
}

/// `not_guaranteed` checks with the same verdict everywhere whose observations differ in kind.
fn differing_observations(table: &ExperimentTable) -> Vec<Observation> {
    table
        .verdicts
        .iter()
        .filter(|v| {
            let statuses: Vec<_> = v.statuses.iter().flatten().collect();
            statuses.len() >= 2 && statuses.iter().all(|s| **s == VerdictStatus::NotGuaranteed)
        })
        .filter(|v| {
            let mut kinds = v.details.iter().flatten().map(|d| observation_kind(d));
            let first = kinds.next();
            kinds.any(|k| Some(&k) != first.as_ref())
        })
        .map(|v| Observation {
            experiment: table.id.clone(),
            key: v.id().to_owned(),
            check: v.check.clone(),
            details: v.details.clone(),
        })
        .collect()
}
