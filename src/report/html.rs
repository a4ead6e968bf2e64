//! `divlab report`: one self-contained HTML page over several result documents, to attach to a
//! bug report or a paper. Styles and SVG charts are inline; there is no script, font, image or
//! link to anything outside the file, so it reads the same offline and years later.

use std::fmt::Write as _;

use crate::report::charts::{self, Chart, Curve};
use crate::report::compare::status_name;
use crate::report::compare_render::{MISSING, OBSERVATIONS_HEADING};
use crate::report::{Catalog, Comparison, ExperimentTable, Mark, ResultDocument, RowKind, Series};

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

/// The report over `(label, document)` pairs, as one HTML page, with the key figures `catalog`
/// declares.
pub fn html_report(docs: &[(String, ResultDocument)], catalog: &Catalog) -> String {
    let cmp = Comparison::new(docs, catalog);
    let labels: Vec<&str> = cmp.labels.iter().map(String::as_str).collect();
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"divlab {}\">\n<title>divlab report: {}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<h1>divlab report</h1>\n<p>{}. Written by \
         divlab {}; every chart and table comes from the result files named below.</p>\n",
        env!("CARGO_PKG_VERSION"),
        esc(&labels.join(", ")),
        esc(&cmp.headline()),
        env!("CARGO_PKG_VERSION"),
    );
    contents(&mut out, &cmp);
    let _ = write!(
        out,
        "<section id=\"adapters\">\n<h2>Adapters</h2>\n<p>{}</p>\n",
        swatches(&(0..labels.len()).collect::<Vec<_>>(), &labels)
    );
    let mut adapter = cmp.adapter.clone();
    adapter.extend(extra_adapter_rows(docs));
    rows_table(&mut out, &labels, adapter.iter());
    out.push_str("</section>\n");
    for (index, table) in cmp.experiments.iter().enumerate() {
        experiment_section(&mut out, index, table, docs, &labels);
    }
    if !cmp.observations.is_empty() {
        observations(&mut out, &cmp, &labels);
    }
    out.push_str(
        "<footer>Highlighted rows: a check whose verdict differs between files, and the key \
         figures it is decided on. — : not in that file. <i>n</i> in a check: a number the \
         files word differently (such as the subgroup size); a check worded differently by \
         different files shows each wording, joined by /. Verdicts: <b>held</b>/<b>violated\
         </b> (WGSL guarantees it), <b>not_guaranteed</b> (WGSL promises nothing; the detail is \
         what the device did), <b>consistent</b>/<b>inconsistent</b> (a cost model's claim \
         against the measurement), <b>inconclusive</b> (the 95% interval of the ratio behind \
         the claim straddles one of its limits; more rounds or a quieter device would decide \
         it).</footer>\n</body>\n</html>\n",
    );
    out
}

/// Escapes text for HTML content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn contents(out: &mut String, cmp: &Comparison) {
    out.push_str("<nav>\n<ul>\n<li><a href=\"#adapters\">Adapters</a></li>\n");
    for (index, table) in cmp.experiments.iter().enumerate() {
        let _ = writeln!(
            out,
            "<li><a href=\"#experiment-{index}\">{}</a>: {}</li>",
            esc(&table.id),
            esc(&table.title)
        );
    }
    if !cmp.observations.is_empty() {
        out.push_str("<li><a href=\"#observations\">Observations that differ</a></li>\n");
    }
    out.push_str("</ul>\n</nav>\n");
}

/// Colour keys for the files at `files`.
fn swatches(files: &[usize], labels: &[&str]) -> String {
    files
        .iter()
        .map(|&f| {
            format!(
                "<span class=\"swatch\" style=\"background: {}\"></span>{}",
                charts::css_color(f),
                esc(labels[f])
            )
        })
        .collect()
}

/// What the comparison's adapter rows leave out, for a bug report: PCI ids and features.
fn extra_adapter_rows(docs: &[(String, ResultDocument)]) -> Vec<crate::report::Row> {
    let row = |label: &str, f: &dyn Fn(&ResultDocument) -> String| crate::report::Row {
        label: label.to_owned(),
        kind: RowKind::Adapter,
        cells: docs
            .iter()
            .map(|(_, d)| crate::report::Cell::Text(f(d)))
            .collect(),
        mark: Mark::None,
    };
    let yes = |b: bool| if b { "yes" } else { "no" }.to_owned();
    vec![
        row("PCI vendor:device", &|d| {
            format!("{:04x}:{:04x}", d.adapter.vendor, d.adapter.device)
        }),
        row("subgroups", &|d| yes(d.adapter.subgroups)),
        row("timestamps", &|d| yes(d.adapter.timestamps)),
    ]
}

fn rows_table<'a>(
    out: &mut String,
    labels: &[&str],
    rows: impl Iterator<Item = &'a crate::report::Row>,
) {
    out.push_str("<table>\n<thead><tr><th></th>");
    for label in labels {
        let _ = write!(out, "<th>{}</th>", esc(label));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        let class = match row.mark {
            Mark::None => "",
            Mark::VerdictDiffers => " class=\"differs\"",
            Mark::BehindVerdict => " class=\"behind\"",
        };
        let _ = write!(out, "<tr{class}><th>{}</th>", esc(&row.label));
        for cell in &row.cells {
            let _ = match cell {
                crate::report::Cell::Missing => write!(out, "<td class=\"missing\">{MISSING}</td>"),
                crate::report::Cell::Number { .. } => {
                    write!(out, "<td class=\"num\">{}</td>", esc(&cell.shown()))
                }
                crate::report::Cell::Text(t) => write!(out, "<td>{}</td>", esc(t)),
            };
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

fn experiment_section(
    out: &mut String,
    index: usize,
    table: &ExperimentTable,
    docs: &[(String, ResultDocument)],
    labels: &[&str],
) {
    let _ = write!(
        out,
        "<section id=\"experiment-{index}\">\n<h2>{} <small>{}</small></h2>\n\
         <p class=\"rule\">Rule: {} ({})</p>\n",
        esc(&table.id),
        esc(&table.title),
        esc(&table.rule.text),
        esc(&table.rule.source)
    );
    let experiments: Vec<_> = docs
        .iter()
        .map(|(_, d)| d.experiments.iter().find(|e| e.id == table.id))
        .collect();
    for (label, e) in labels.iter().zip(&experiments) {
        if let Some(e) = e.filter(|e| !e.status_detail.is_empty()) {
            let _ = writeln!(
                out,
                "<p>{}: {}: {}</p>",
                esc(label),
                status_name(e.status),
                esc(&e.status_detail)
            );
        }
    }
    rows_table(
        out,
        labels,
        table.rows.iter().filter(|r| r.kind != RowKind::Verdict),
    );
    let series = |name: &str| -> Vec<Option<&Series>> {
        experiments
            .iter()
            .map(|e| e.and_then(|e| e.series.iter().find(|s| s.name == name)))
            .collect()
    };
    chart(
        out,
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
    chart(
        out,
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
    verdict_table(out, table, labels);
    out.push_str("</section>\n");
}

/// A chart's words: its title, its y axis (`None`: the series' own label) and its caption.
struct ChartText<'a> {
    title: &'a str,
    y_label: Option<&'a str>,
    caption: &'a str,
}

/// A chart of `solid` and `dashed` series per file, or nothing where no file has the series.
fn chart(
    out: &mut String,
    labels: &[&str],
    ChartText {
        title,
        y_label,
        caption,
    }: ChartText<'_>,
    y_format: fn(f64) -> String,
    [solid, dashed]: [Vec<Option<&Series>>; 2],
) {
    let Some(first) = solid.iter().flatten().next() else {
        return;
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
        Ok(svg) => {
            let _ = write!(
                out,
                "<figure class=\"chart\">\n{svg}<figcaption>{}: {}. {}</figcaption>\n</figure>\n",
                esc(title),
                esc(caption),
                swatches(&files, labels)
            );
        }
        Err(why) => {
            let _ = writeln!(out, "<p>{}: no chart ({}).</p>", esc(title), esc(&why));
        }
    }
}

fn verdict_table(out: &mut String, table: &ExperimentTable, labels: &[&str]) {
    if table.verdicts.is_empty() {
        return;
    }
    let differing = table.verdicts.iter().filter(|v| v.differs()).count();
    let _ = write!(
        out,
        "<h3>Verdicts</h3>\n<p>{} checks; {differing} with different verdicts between files \
         (highlighted). Open a verdict for its detail.</p>\n<table class=\"verdicts\">\n\
         <thead><tr><th>check</th>",
        table.verdicts.len()
    );
    for label in labels {
        let _ = write!(out, "<th>{}</th>", esc(label));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for v in &table.verdicts {
        let class = if v.differs() {
            " class=\"differs\""
        } else {
            ""
        };
        let _ = write!(out, "<tr{class}><td>{}</td>", esc(&v.check));
        for (status, detail) in v.statuses.iter().zip(&v.details) {
            let _ = match status {
                Some(s) => write!(
                    out,
                    "<td class=\"v-{0}\"><details><summary>{0}</summary><div>{1}</div>\
                     </details></td>",
                    s.as_str(),
                    esc(detail.as_deref().unwrap_or_default())
                ),
                None => write!(out, "<td class=\"missing\">{MISSING}</td>"),
            };
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

fn observations(out: &mut String, cmp: &Comparison, labels: &[&str]) {
    let _ = write!(
        out,
        "<section id=\"observations\">\n<h2>Observations that differ</h2>\n<p>{}. Counts are \
         ignored; a fraction a/b counts as all, none or some.</p>\n<table>\n<thead><tr>\
         <th>experiment</th><th>check</th>",
        esc(OBSERVATIONS_HEADING)
    );
    for label in labels {
        let _ = write!(out, "<th>{}</th>", esc(label));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for o in &cmp.observations {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td>",
            esc(&o.experiment),
            esc(&o.check)
        );
        for d in &o.details {
            let _ = match d {
                Some(d) => write!(out, "<td>{}</td>", esc(d)),
                None => write!(out, "<td class=\"missing\">{MISSING}</td>"),
            };
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}
