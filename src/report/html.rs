//! `divlab report`: one self-contained HTML page over several result documents, to attach to a
//! bug report or a paper. Styles and SVG charts are inline; there is no script, font, image or
//! link to anything outside the file, so it reads the same offline and years later.
//!
//! The page is written with maud: every text is escaped by the template, and the markup's shape
//! is checked when divlab compiles.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::report::charts::{self, Chart, Curve};
use crate::report::compare::{adapter_row, status_name};
use crate::report::compare_render::{MISSING, OBSERVATIONS_HEADING};
use crate::report::{
    Catalog, Cell, Comparison, ExperimentTable, Mark, ResultDocument, Row, RowKind, Series,
};

/// The page's style sheet. Print-friendly: no backgrounds needed to read a verdict.
const STYLE: &str = "
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
h2 small { font-weight: normal; color: #555; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.differs > * { background: #ffe9a8; font-weight: bold; }
tr.behind > * { background: #fff6d5; }
.missing { color: #999; }
.v-held, .v-consistent { color: #17612a; }
.v-violated { color: #b00020; font-weight: bold; }
.v-inconsistent { color: #a24d00; }
.v-inconclusive { color: #6b5d00; font-style: italic; }
.v-not_guaranteed { color: #33518a; }
details > div { font-weight: normal; color: #333; max-width: 40em; }
figure.chart { margin: 1em 0; }
figure.chart svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
.swatch { display: inline-block; width: 1.6em; height: 0.35em; vertical-align: middle; margin: 0 0.3em 0 0.8em; }
.rule { color: #444; }
footer { margin-top: 3em; color: #555; font-size: 90%; }
";

const FOOTER: &str = "Highlighted rows: a check whose verdict differs between files, and the key \
figures it is decided on. — : not in that file.";
const FOOTER_N: &str = "in a check: a number the files word \
differently (such as the subgroup size); a check worded differently by different files shows \
each wording, joined by /.";

/// The report over `(label, document)` pairs, as one HTML page, with the key figures `catalog`
/// declares.
pub fn html_report(docs: &[(String, ResultDocument)], catalog: &Catalog) -> String {
    let cmp = Comparison::new(docs, catalog);
    let labels: Vec<&str> = cmp.labels.iter().map(String::as_str).collect();
    let version = env!("CARGO_PKG_VERSION");
    let mut adapter = cmp.adapter.clone();
    adapter.extend(extra_adapter_rows(docs));
    let all_files: Vec<usize> = (0..labels.len()).collect();
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content={ "divlab " (version) };
                title { "divlab report: " (labels.join(", ")) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { "divlab report" }
                p {
                    (cmp.headline()) ". Written by divlab " (version)
                    "; every chart and table comes from the result files named below."
                }
                (contents(&cmp))
                section id="adapters" {
                    h2 { "Adapters" }
                    p { (swatches(&all_files, &labels)) }
                    (rows_table(&labels, adapter.iter()))
                }
                @for (index, table) in cmp.experiments.iter().enumerate() {
                    (experiment_section(index, table, docs, &labels))
                }
                @if !cmp.observations.is_empty() {
                    (observations(&cmp, &labels))
                }
                footer {
                    (FOOTER) " " i { "n" } " " (FOOTER_N) " Verdicts: " b { "held" } "/" b { "violated" }
                    " (WGSL guarantees it), " b { "not_guaranteed" }
                    " (WGSL promises nothing; the detail is what the device did), "
                    b { "consistent" } "/" b { "inconsistent" }
                    " (a cost model's claim against the measurement), " b { "inconclusive" }
                    " (the 95% interval of the ratio behind the claim straddles one of its \
                     limits; more rounds or a quieter device would decide it)."
                }
            }
        }
    };
    let mut out = page.into_string();
    out.push('\n');
    out
}

fn contents(cmp: &Comparison) -> Markup {
    html! {
        nav {
            ul {
                li { a href="#adapters" { "Adapters" } }
                @for (index, table) in cmp.experiments.iter().enumerate() {
                    li { a href={ "#experiment-" (index) } { (table.id) } ": " (table.title) }
                }
                @if !cmp.observations.is_empty() {
                    li { a href="#observations" { "Observations that differ" } }
                }
            }
        }
    }
}

/// Colour keys for the files at `files`.
fn swatches(files: &[usize], labels: &[&str]) -> Markup {
    html! {
        @for &f in files {
            span class="swatch" style={ "background: " (charts::css_color(f)) } {}
            (labels[f])
        }
    }
}

/// What the comparison's adapter rows leave out, for a bug report: PCI ids and features.
fn extra_adapter_rows(docs: &[(String, ResultDocument)]) -> Vec<Row> {
    let row = |key: (&str, &str), f: &dyn Fn(&ResultDocument) -> String| adapter_row(docs, key, f);
    let yes = |b: bool| if b { "yes" } else { "no" }.to_owned();
    vec![
        row(("pci_id", "PCI vendor:device"), &|d| {
            format!("{:04x}:{:04x}", d.adapter.vendor, d.adapter.device)
        }),
        row(("subgroups", "subgroups"), &|d| yes(d.adapter.subgroups)),
        row(("timestamps", "timestamps"), &|d| yes(d.adapter.timestamps)),
    ]
}

/// A `<td>` for a file's cell of a row.
fn cell(cell: &Cell) -> Markup {
    html! {
        @match cell {
            Cell::Missing => td class="missing" { (MISSING) },
            Cell::Number { .. } => td class="num" { (cell.shown()) },
            Cell::Text(t) => td { (t) },
        }
    }
}

fn rows_table<'a>(labels: &[&str], rows: impl Iterator<Item = &'a Row>) -> Markup {
    html! {
        table {
            thead { tr { th {} @for label in labels { th { (label) } } } }
            tbody {
                @for row in rows {
                    @let class = match row.mark {
                        Mark::None => None,
                        Mark::VerdictDiffers => Some("differs"),
                        Mark::BehindVerdict => Some("behind"),
                    };
                    tr class=[class] {
                        th { (row.label) }
                        @for c in &row.cells { (cell(c)) }
                    }
                }
            }
        }
    }
}

fn experiment_section(
    index: usize,
    table: &ExperimentTable,
    docs: &[(String, ResultDocument)],
    labels: &[&str],
) -> Markup {
    let experiments: Vec<_> = docs
        .iter()
        .map(|(_, d)| d.experiments.iter().find(|e| e.id == table.id))
        .collect();
    let series = |name: &str| -> Vec<Option<&Series>> {
        experiments
            .iter()
            .map(|e| e.and_then(|e| e.series.iter().find(|s| s.name == name)))
            .collect()
    };
    let time_chart = chart(
        labels,
        ChartText {
            title: &format!("{}: T(k)", table.id),
            y_label: Some("T(k)"),
            caption: "time for k paths, lane-divergent (solid, dots) and its subgroup-uniform \
                      control (dashed)",
        },
        crate::report::units::format_ns,
        [series("t_div"), series("t_uniform")],
    );
    let efficiency_chart = chart(
        labels,
        ChartText {
            title: &format!("{}: efficiency", table.id),
            y_label: None,
            caption: "active lanes per issue, SG/F(k): measured (solid, dots) and the SIMT \
                      model SG/k (dashed)",
        },
        charts::short_number,
        [series("efficiency"), series("efficiency_model")],
    );
    html! {
        section id={ "experiment-" (index) } {
            h2 { (table.id) " " small { (table.title) } }
            p class="rule" { "Rule: " (table.rule.text) " (" (table.rule.source) ")" }
            @for (label, e) in labels.iter().zip(&experiments) {
                @if let Some(e) = e.filter(|e| !e.status_detail.is_empty()) {
                    p { (label) ": " (status_name(e.status)) ": " (e.status_detail) }
                }
            }
            (rows_table(labels, table.rows.iter().filter(|r| r.kind != RowKind::Verdict)))
            (time_chart)
            (efficiency_chart)
            (verdict_table(table, labels))
        }
    }
}

/// A chart's words: its title, its y axis (`None`: the series' own label) and its caption.
struct ChartText<'a> {
    title: &'a str,
    y_label: Option<&'a str>,
    caption: &'a str,
}

/// A chart of `solid` and `dashed` series per file, or nothing where no file has the series.
fn chart(
    labels: &[&str],
    ChartText {
        title,
        y_label,
        caption,
    }: ChartText<'_>,
    y_format: fn(f64) -> String,
    [solid, dashed]: [Vec<Option<&Series>>; 2],
) -> Markup {
    let Some(first) = solid.iter().flatten().next() else {
        return html! {};
    };
    let files: Vec<usize> = (0..labels.len()).filter(|f| solid[*f].is_some()).collect();
    let points = |s: &Series| s.points.iter().map(|p| (p.x, p.y)).collect();
    let mut curves = Vec::new();
    for &f in &files {
        if let Some(s) = dashed[f] {
            curves.push(Curve {
                file: f,
                dashed: true,
                points: points(s),
            });
        }
        curves.push(Curve {
            file: f,
            dashed: false,
            points: points(solid[f].expect("files with the series")),
        });
    }
    let spec = Chart {
        title,
        x_label: &first.x_label,
        y_label: y_label.unwrap_or(&first.y_label),
        y_format,
        curves,
    };
    match charts::render(&spec) {
        // The SVG comes from plotters, which escapes its own text.
        Ok(svg) => html! {
            figure class="chart" {
                (PreEscaped(svg))
                figcaption { (title) ": " (caption) ". " (swatches(&files, labels)) }
            }
        },
        Err(why) => html! { p { (title) ": no chart (" (why) ")." } },
    }
}

fn verdict_table(table: &ExperimentTable, labels: &[&str]) -> Markup {
    if table.verdicts.is_empty() {
        return html! {};
    }
    let differing = table.verdicts.iter().filter(|v| v.differs()).count();
    html! {
        h3 { "Verdicts" }
        p {
            (table.verdicts.len()) " checks; " (differing)
            " with different verdicts between files (highlighted). Open a verdict for its detail."
        }
        table class="verdicts" {
            thead { tr { th { "check" } @for label in labels { th { (label) } } } }
            tbody {
                @for v in &table.verdicts {
                    tr class=[v.differs().then_some("differs")] {
                        td { (v.check) }
                        @for (status, detail) in v.statuses.iter().zip(&v.details) {
                            @match status {
                                Some(s) => td class={ "v-" (s.as_str()) } {
                                    details {
                                        summary { (s.as_str()) }
                                        div { (detail.as_deref().unwrap_or_default()) }
                                    }
                                },
                                None => td class="missing" { (MISSING) },
                            }
                        }
                    }
                }
            }
        }
    }
}

fn observations(cmp: &Comparison, labels: &[&str]) -> Markup {
    html! {
        section id="observations" {
            h2 { "Observations that differ" }
            p {
                (OBSERVATIONS_HEADING)
                ". Counts are ignored; a fraction a/b counts as all, none or some."
            }
            table {
                thead {
                    tr { th { "experiment" } th { "check" } @for label in labels { th { (label) } } }
                }
                tbody {
                    @for o in &cmp.observations {
                        tr {
                            td { (o.experiment) }
                            td {
                                (o.check)
                                @if let Some(note) = o.sampling_note(&cmp.labels) {
                                    br; small { (note) }
                                }
                            }
                            @for d in &o.details {
                                @match d {
                                    Some(d) => td { (d) },
                                    None => td class="missing" { (MISSING) },
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
