//! Cross-device comparison: `divlab compare` and `divlab report` over the reference result files,
//! and the loader that has to survive result files from strangers.
//!
//! Expectations come from the files themselves (they are regenerated with new experiments), never
//! from numbers typed here. These tests run no kernel, but they run the binary and parse large
//! files, so they hold the shared GPU lock: on two cores they would disturb a timing test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use divlab::Error;
use divlab::experiments::catalog;
use divlab::report::{
    Cell, Comparison, ExperimentResult, LaneRecord, MAX_ARRAY_LEN, MAX_DEPTH, MAX_FILE_BYTES, Mark,
    ResultDocument, RowKind, VerdictStatus, html_report, parse_json, read_documents, read_json,
    write_json,
};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::util;
use crate::util::{divlab, path_in, run, temp_dir};

const SG8: &str = "lavapipe-sg8.json";
const SG4: &str = "lavapipe-sg4.json";
const H200: &str = "nvidia-h200.json";

fn reference(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/reference")
        .join(name)
}

/// Every reference file, sorted as a shell sorts `assets/reference/*.json`.
pub(crate) fn all_references() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(reference(""))
        .expect("assets/reference exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no reference result files");
    files
}

fn load(name: &str) -> ResultDocument {
    read_json(&reference(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// The key figures the issue asks for: (metric, label, decimals), written out here on purpose
/// rather than taken from the library, so a changed label or rounding shows up.
const FIGURES: &[(&str, &str, usize)] = &[
    ("slope_s_ns", "s (ns/path)", 0),
    ("r2", "R²", 4),
    ("serialization_at_sg", "F(SG)", 2),
    ("predicated_ratio_at_sg", "T_pred(SG)/T_pred(1)", 3),
    ("occupancy_spread", "occupancy spread", 3),
];

fn experiment<'a>(doc: &'a ResultDocument, id: &str) -> Option<&'a ExperimentResult> {
    doc.experiments.iter().find(|e| e.id == id)
}

fn digitless(s: &str) -> String {
    s.chars().filter(|c| !c.is_ascii_digit()).collect()
}

/// Checks whose verdicts differ between `a` and `b`, worked out without the library: the same
/// experiment lists its checks in the same order on every device, worded alike but for numbers.
fn differing_checks(a: &ExperimentResult, b: &ExperimentResult) -> Vec<(String, [String; 2])> {
    assert_eq!(
        a.verdicts.len(),
        b.verdicts.len(),
        "`{}` has different checks in the two files",
        a.id
    );
    a.verdicts
        .iter()
        .zip(&b.verdicts)
        .inspect(|(x, y)| assert_eq!(digitless(&x.check), digitless(&y.check), "order"))
        .filter(|(x, y)| x.status != y.status)
        .map(|(x, y)| {
            let statuses = [x.status.as_str().to_owned(), y.status.as_str().to_owned()];
            (digitless(&x.check), statuses)
        })
        .collect()
}

#[test]
fn compare_two_lavapipe_documents_side_by_side() {
    let _cpu = util::gpu_shared();
    let (sg8, sg4) = (load(SG8), load(SG4));
    let docs = read_documents(&[reference(SG8), reference(SG4)]).unwrap_or_else(|e| panic!("{e}"));
    let cmp = Comparison::new(&docs, &catalog());
    assert_eq!(cmp.labels, [SG8, SG4]);
    let adapter = |label: &str| {
        let row = cmp.adapter.iter().find(|r| r.label == label);
        let row = row.unwrap_or_else(|| panic!("no adapter row `{label}`"));
        row.cells.iter().map(Cell::shown).collect::<Vec<_>>()
    };
    let sizes = [&sg8, &sg4].map(|d| d.adapter.observed_subgroup_size.expect("measured"));
    assert_eq!(
        adapter("subgroup size (observed)"),
        sizes.map(|s| s.to_string())
    );
    assert_eq!(
        adapter("backend"),
        [&sg8, &sg4].map(|d| d.adapter.backend.clone())
    );
    assert!(adapter("driver")[0].contains(&sg8.adapter.driver_info));

    let divergence: Vec<&str> = sg8
        .experiments
        .iter()
        .map(|e| e.id.as_str())
        .filter(|id| id.starts_with("divergence.") && experiment(&sg4, id).is_some())
        .collect();
    assert!(
        !divergence.is_empty(),
        "the files share no divergence experiment"
    );
    let out = run({
        let mut cmd = divlab(Path::new(env!("CARGO_MANIFEST_DIR")));
        cmd.arg("compare").arg(reference(SG8)).arg(reference(SG4));
        cmd
    });
    out.assert_code(0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    let mut expected_differences = 0;
    for id in &divergence {
        let (e8, e4) = (experiment(&sg8, id).unwrap(), experiment(&sg4, id).unwrap());
        let table = cmp
            .experiments
            .iter()
            .find(|t| t.id == *id)
            .expect("a table");
        assert!(
            lines.contains(&format!("{id}: {}", e8.title).as_str()),
            "no heading for {id}\n{out}"
        );
        let section: Vec<&str> = out
            .stdout
            .split(&format!("\n{id}: "))
            .nth(1)
            .expect("the section")
            .split("\n\n")
            .next()
            .expect("text")
            .lines()
            .collect();
        for (metric, label, decimals) in FIGURES {
            let values = [e8, e4].map(|e| format!("{:.decimals$}", e.metrics[*metric]));
            let row = table.rows.iter().find(|r| r.label == *label);
            let row = row.unwrap_or_else(|| panic!("{id}: no row `{label}`"));
            assert_eq!(row.kind, RowKind::Figure);
            assert_eq!(
                row.cells.iter().map(Cell::shown).collect::<Vec<_>>(),
                values
            );
            let line = section
                .iter()
                .find(|l| l.get(2..).is_some_and(|rest| rest.starts_with(label)));
            let line = line.unwrap_or_else(|| panic!("{id}: no line `{label}`\n{out}"));
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(words[words.len() - 2..], values, "{id}: `{line}`");
        }
        for status in [
            "held",
            "consistent",
            "inconsistent",
            "not_guaranteed",
            "violated",
        ] {
            let count = |e: &ExperimentResult| {
                let n = e
                    .verdicts
                    .iter()
                    .filter(|v| v.status.as_str() == status)
                    .count();
                n.to_string()
            };
            let row = table
                .rows
                .iter()
                .find(|r| r.label == format!("verdicts: {status}"));
            match row {
                Some(row) => assert_eq!(
                    row.cells.iter().map(Cell::shown).collect::<Vec<_>>(),
                    [count(e8), count(e4)]
                ),
                None => assert_eq!([count(e8), count(e4)], ["0", "0"], "{id} {status}"),
            }
        }
        // Checks worded with the subgroup size ("k <= 8", "k <= 4") still pair up.
        assert_eq!(
            table.verdicts.len(),
            e8.verdicts.len(),
            "{id}: {:#?}",
            table.verdicts
        );
        let differing = differing_checks(e8, e4);
        let marked: Vec<_> = table
            .rows
            .iter()
            .filter(|r| r.kind == RowKind::Verdict)
            .collect();
        assert_eq!(marked.len(), differing.len(), "{id}: {marked:#?}");
        for ((check, statuses), row) in differing.iter().zip(&marked) {
            assert_eq!(row.mark, Mark::VerdictDiffers);
            // The row shows numbers the files word differently as `n`; drop both to compare.
            assert_eq!(
                digitless(&row.label).replace('n', ""),
                check.replace('n', "")
            );
            assert_eq!(
                &row.cells.iter().map(Cell::shown).collect::<Vec<_>>(),
                statuses
            );
            let at = section
                .iter()
                .position(|l| l.starts_with("! ") && l.contains(&row.label))
                .unwrap_or_else(|| panic!("{id}: `{}` is not marked with !\n{out}", row.label));
            // A long check has its line to itself, and its cells on the next.
            let ends_with_statuses = |line: &str| {
                let words: Vec<&str> = line.split_whitespace().collect();
                words.len() >= 2 && words[words.len() - 2..] == *statuses
            };
            assert!(
                ends_with_statuses(section[at])
                    || section.get(at + 1).is_some_and(|l| ends_with_statuses(l)),
                "{id}: `{}` does not show {statuses:?}\n{out}",
                row.label
            );
        }
        expected_differences += differing.len();
    }
    assert!(
        out.stdout.starts_with(&format!(
            "divlab compare: 2 result files; {} ",
            cmp.differing_verdicts()
        )),
        "{out}"
    );
    assert!(cmp.differing_verdicts() >= expected_differences);
    assert!(
        out.stdout.contains("! the check's verdict differs"),
        "no legend\n{out}"
    );
}

#[test]
fn compare_writes_markdown_and_csv() {
    let _cpu = util::gpu_shared();
    let (sg8, sg4) = (load(SG8), load(SG4));
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.args(["compare", "--markdown", "-"])
        .arg(reference(SG8))
        .arg(reference(SG4));
    let md = run(cmd);
    md.assert_code(0);
    assert!(
        md.stdout
            .contains(&format!("| | {SG8} | {SG4} |\n|---|---|---|\n")),
        "{md}"
    );
    let mut cmd = divlab(dir.path());
    cmd.args(["compare", "--csv", "out.csv"])
        .arg(reference(SG8))
        .arg(reference(SG4));
    run(cmd).assert_code(0);
    let mut reader = csv::Reader::from_path(path_in(&dir, "out.csv")).expect("out.csv");
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(String::from)
        .collect();
    assert_eq!(
        header,
        ["experiment", "kind", "key", "row", SG8, SG4, "mark"]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a CSV row")).collect();

    for e8 in sg8
        .experiments
        .iter()
        .filter(|e| e.id.starts_with("divergence."))
    {
        let Some(e4) = experiment(&sg4, &e8.id) else {
            continue;
        };
        let differing = differing_checks(e8, e4);
        for (metric, label, decimals) in FIGURES {
            let [a, b] = [e8, e4].map(|e| e.metrics[*metric]);
            let plain = format!("| {label} | {a:.decimals$} | {b:.decimals$} |");
            let bold = format!("| **{label}** | **{a:.decimals$}** | **{b:.decimals$}** |");
            assert!(
                md.stdout.lines().any(|l| l == plain || l == bold),
                "{}: no Markdown row {plain}\n{md}",
                e8.id
            );
            // Keyed by the metric's name, labelled for people.
            let row = rows.iter().find(|r| r[0] == e8.id && &r[2] == *metric);
            let row = row.unwrap_or_else(|| panic!("{}: no CSV row {metric}", e8.id));
            assert_eq!((&row[1], &row[3]), ("figure", *label));
            // CSV keeps every digit.
            assert_eq!(row[4].parse::<f64>().ok(), Some(a), "{row:?}");
            assert_eq!(row[5].parse::<f64>().ok(), Some(b), "{row:?}");
        }
        let verdict_rows: Vec<_> = rows
            .iter()
            .filter(|r| r[0] == e8.id && &r[1] == "verdict")
            .collect();
        assert_eq!(verdict_rows.len(), differing.len(), "{}", e8.id);
        for (r, (_, statuses)) in verdict_rows.iter().zip(&differing) {
            assert_eq!([&r[4], &r[5]], [&statuses[0], &statuses[1]]);
            assert_eq!(&r[6], "verdict_differs");
            // Keyed by the verdict's stable key, which the file has.
            assert!(e8.verdicts.iter().any(|v| v.key == r[2]), "{r:?}");
            let bold = format!("| **{}** | **{}** |", statuses[0], statuses[1]);
            assert!(
                md.stdout.contains(&bold),
                "{}: `{bold}` not bold\n{md}",
                e8.id
            );
        }
    }
}

/// Writes `doc` as `name` in `dir`.
fn write_doc(dir: &tempfile::TempDir, name: &str, doc: &ResultDocument) -> PathBuf {
    let path = path_in(dir, name);
    write_json(&path, doc).unwrap_or_else(|e| panic!("{e}"));
    path
}

#[test]
fn experiments_missing_from_a_file_show_as_a_dash() {
    let _cpu = util::gpu_shared();
    let sg8 = load(SG8);
    let mut fewer = load(SG4);
    let gone = fewer.experiments.remove(fewer.experiments.len() - 1);
    let dir = temp_dir();
    let fewer_path = write_doc(&dir, "fewer.json", &fewer);
    let files = [reference(SG8), fewer_path];
    let cmp = Comparison::new(
        &read_documents(&files).unwrap_or_else(|e| panic!("{e}")),
        &catalog(),
    );
    let table = cmp
        .experiments
        .iter()
        .find(|t| t.id == gone.id)
        .expect("kept");
    for row in &table.rows {
        assert_eq!(row.cells[1], Cell::Missing, "{}: {row:?}", gone.id);
        assert_ne!(row.cells[0], Cell::Missing, "{}: {row:?}", gone.id);
    }
    for (flag, status_row) in [
        (None, "status ok —".to_owned()),
        (Some("--markdown"), "| status | ok | — |".to_owned()),
        (
            Some("--csv"),
            format!("{},status,status,status,ok,,", gone.id),
        ),
    ] {
        let mut cmd = divlab(dir.path());
        cmd.arg("compare")
            .args(flag.map(|f| [f, "-"]).into_iter().flatten())
            .args(&files);
        let out = run(cmd);
        out.assert_code(0);
        // Only the experiment missing from one file has a status row with a dash.
        let words = |l: &str| l.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            out.stdout
                .lines()
                .any(|l| l == status_row || (flag.is_none() && words(l) == status_row)),
            "{flag:?}: no `{status_row}`\n{out}"
        );
    }
    assert!(sg8.experiments.iter().any(|e| e.id == gone.id));
}

#[test]
fn verdict_and_observation_differences_are_highlighted() {
    let _cpu = util::gpu_shared();
    let base = load(SG8);
    let mut changed = base.clone();
    let size = changed
        .experiments
        .iter_mut()
        .find(|e| e.id == "subgroup.size")
        .expect("subgroup.size is in every reference file");
    let held = size
        .verdicts
        .iter_mut()
        .find(|v| v.status == VerdictStatus::Held)
        .expect("held");
    held.status = VerdictStatus::Violated;
    let flipped = held.check.clone();
    let observed = size
        .verdicts
        .iter_mut()
        .find(|v| v.status == VerdictStatus::NotGuaranteed)
        .expect("not_guaranteed");
    observed.detail = "observed: something no other device did".to_owned();
    let observation = observed.check.clone();
    // Flip a verdict decided on a key figure: its figure gets a `*`.
    let mut occupancy_id = None;
    for e in &mut changed.experiments {
        if let Some(v) = e
            .verdicts
            .iter_mut()
            .find(|v| v.check.contains("occupancy"))
        {
            v.status = if v.status == VerdictStatus::Consistent {
                VerdictStatus::Inconsistent
            } else {
                VerdictStatus::Consistent
            };
            occupancy_id = Some(e.id.clone());
            break;
        }
    }

    let docs = vec![("a.json".to_owned(), base), ("b.json".to_owned(), changed)];
    let cmp = Comparison::new(&docs, &catalog());
    let text = cmp.to_text();
    assert!(text.contains(&format!("! {flipped}")), "{text}");
    assert!(
        text.contains(&format!("{OBSERVATIONS}\nsubgroup.size: {observation}\n")),
        "{text}"
    );
    assert!(
        text.contains("b.json observed: something no other device did"),
        "{text}"
    );
    assert_eq!(cmp.observations.len(), 1, "{:#?}", cmp.observations);
    if let Some(id) = occupancy_id {
        let table = cmp.experiments.iter().find(|t| t.id == id).expect("table");
        let spread = table.rows.iter().find(|r| r.label == "occupancy spread");
        if let Some(spread) = spread {
            assert_eq!(spread.mark, Mark::BehindVerdict, "{id}");
            assert!(text.contains("* occupancy spread"), "{text}");
        }
    }
    let md = cmp.to_markdown();
    assert!(
        md.contains(&format!("| **{flipped}** | **held** | **violated** |")),
        "{md}"
    );
    let html = html_report(&docs, &catalog());
    assert_eq!(
        html.matches("<tr class=\"differs\">").count(),
        cmp.differing_verdicts(),
        "one highlighted verdict row per differing check"
    );
}

const OBSERVATIONS: &str = "observations that differ (not_guaranteed: WGSL promises nothing, so \
     each device's behaviour is information, not a failure)";

/// What an HTML check found.
#[derive(Debug, Default)]
struct Page {
    /// `<svg>` elements inside each `<figure class="chart">`.
    svgs_per_chart: Vec<usize>,
    /// `<svg>` elements anywhere.
    svgs: usize,
    /// Text of `<title>`.
    title: String,
}

/// Tokenizes `html` with a WHATWG tokenizer and checks what a tokenizer cannot: every element
/// closed in order, self-closing tags only in SVG, and no reference to anything outside the file
/// (no script, link, image or frame; every `href` a `#fragment`; no `url(` or `@import` in CSS).
fn check_html(html: &str) -> Result<Page, Vec<String>> {
    use html5gum::{DefaultEmitter, Token, Tokenizer};
    const VOID: &[&str] = &[
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr",
    ];
    const FORBIDDEN: &[&str] = &[
        "script",
        "link",
        "img",
        "iframe",
        "object",
        "embed",
        "base",
        "audio",
        "video",
        "source",
        "image",
        "use",
        "foreignobject",
    ];
    let mut emitter = DefaultEmitter::default();
    emitter.naively_switch_states(true);
    let mut errors = Vec::new();
    let mut stack: Vec<String> = Vec::new();
    let mut page = Page::default();
    let mut doctype = false;
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    for token in Tokenizer::new_with_emitter(html, emitter) {
        let Ok(token) = token;
        match token {
            Token::Error(e) => errors.push(format!("tokenizer: {}", *e)),
            Token::Doctype(d) => doctype = text(&d.name) == "html",
            Token::StartTag(tag) => {
                let name = text(&tag.name);
                if FORBIDDEN.contains(&name.as_str()) {
                    errors.push(format!("<{name}> can load something from outside"));
                }
                for (key, value) in &tag.attributes {
                    let (key, value) = (text(key), text(value).to_ascii_lowercase());
                    let linking = ["src", "href", "xlink:href", "action", "data", "poster"];
                    if linking.contains(&key.as_str()) && !value.starts_with('#') {
                        errors.push(format!("<{name} {key}=\"{value}\"> links outside"));
                    }
                    if value.contains("url(") || value.contains("http") || value.contains("//") {
                        errors.push(format!("<{name} {key}=\"{value}\"> names a URL"));
                    }
                }
                if name == "svg" {
                    page.svgs += 1;
                    if stack.iter().any(|s| s == "figure") {
                        *page.svgs_per_chart.last_mut().expect("in a figure") += 1;
                    }
                }
                if name == "figure" {
                    let class = tag.attributes.get(b"class".as_slice()).map(|c| text(c));
                    if class.as_deref() != Some("chart") {
                        errors.push(format!("a figure of class {class:?}"));
                    }
                    page.svgs_per_chart.push(0);
                }
                let in_svg = stack.iter().any(|s| s == "svg");
                if tag.self_closing && !in_svg && !VOID.contains(&name.as_str()) {
                    errors.push(format!("<{name}/> outside SVG"));
                }
                if !tag.self_closing && !VOID.contains(&name.as_str()) {
                    stack.push(name);
                }
            }
            Token::EndTag(tag) => {
                let name = text(&tag.name);
                match stack.pop() {
                    Some(open) if open == name => {}
                    open => errors.push(format!("</{name}> closes {open:?}; open: {stack:?}")),
                }
            }
            Token::String(s) => {
                let s = text(&s);
                match stack.last().map(String::as_str) {
                    Some("style") if s.contains("url(") || s.contains("@import") => {
                        errors.push("the style sheet loads something".to_owned());
                    }
                    Some("title") => page.title.push_str(&s),
                    _ => {}
                }
            }
            Token::Comment(_) => {}
        }
    }
    if !doctype {
        errors.push("no <!DOCTYPE html>".to_owned());
    }
    if !stack.is_empty() {
        errors.push(format!("never closed: {stack:?}"));
    }
    if errors.is_empty() {
        Ok(page)
    } else {
        Err(errors)
    }
}

/// Charts the report must draw: a T(k) and an efficiency chart for each experiment id that has
/// those series with a point a log-log chart can show.
fn expected_charts(docs: &[ResultDocument]) -> usize {
    let mut ids: BTreeMap<&str, [bool; 2]> = BTreeMap::new();
    for e in docs.iter().flat_map(|d| &d.experiments) {
        let has = |name: &str| {
            e.series
                .iter()
                .any(|s| s.name == name && s.points.iter().any(|p| p.x > 0.0 && p.y > 0.0))
        };
        let entry = ids.entry(&e.id).or_default();
        entry[0] |= has("t_div");
        entry[1] |= has("efficiency");
    }
    ids.values().flatten().filter(|b| **b).count()
}

#[test]
fn report_is_one_self_contained_html_file_with_an_svg_per_chart() {
    let _cpu = util::gpu_shared();
    let files = all_references();
    let docs: Vec<ResultDocument> = files.iter().map(|f| read_json(f).unwrap()).collect();
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.arg("report").args(&files).args(["-o", "report.html"]);
    run(cmd).assert_code(0);
    let html = std::fs::read_to_string(path_in(&dir, "report.html")).expect("report.html");
    let page = check_html(&html).unwrap_or_else(|e| panic!("not clean HTML:\n{}", e.join("\n")));
    let charts = expected_charts(&docs);
    assert!(charts > 0, "the reference files have no T(k) series");
    assert_eq!(page.svgs_per_chart.len(), charts, "{page:?}");
    assert!(page.svgs_per_chart.iter().all(|n| *n == 1), "{page:?}");
    assert_eq!(page.svgs, charts, "an <svg> outside a chart figure");
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        assert!(page.title.contains(name.as_ref()), "title {:?}", page.title);
    }
    for e in docs.iter().flat_map(|d| &d.experiments) {
        assert!(
            html.contains(&format!("<h2>{} <small>", e.id)),
            "no section for {}",
            e.id
        );
    }
    // The same text the terminal shows, as HTML: every adapter is named.
    for d in &docs {
        assert!(
            html.contains(&d.adapter.name.replace('&', "&amp;")),
            "{}",
            d.adapter.name
        );
    }
}

#[test]
fn html_checker_catches_what_it_should() {
    let ok = "<!DOCTYPE html><html><head><title>t</title></head><body><figure class=\"chart\">\
              <svg><circle r=\"1\"/></svg></figure></body></html>";
    assert_eq!(check_html(ok).expect("valid").svgs_per_chart, [1]);
    for bad in [
        "<!DOCTYPE html><html><body><div></span></body></html>",
        "<!DOCTYPE html><html><body><img src=\"x.png\"></body></html>",
        "<!DOCTYPE html><html><body><a href=\"https://example.org\">x</a></body></html>",
        "<!DOCTYPE html><html><head><style>p { background: url(x.png) }</style></head></html>",
        "<!DOCTYPE html><html><body><p attr=\"unterminated></body></html>",
        "<html><body></body></html>",
    ] {
        assert!(check_html(bad).is_err(), "accepted: {bad}");
    }
}

/// The findings page's comparison is exactly `divlab compare --markdown - assets/reference/*.json`.
#[test]
fn findings_comparison_matches_reference_files() {
    let _cpu = util::gpu_shared();
    const BEGIN: &str = "<!-- compare-table:begin -->\n";
    const END: &str = "<!-- compare-table:end -->";
    let docs = read_documents(&all_references()).unwrap_or_else(|e| panic!("{e}"));
    let expected = Comparison::new(&docs, &catalog()).to_markdown();
    let findings =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/findings.md"))
            .expect("docs/findings.md");
    let help = "paste the output of `divlab compare --markdown - assets/reference/*.json` \
                between `<!-- compare-table:begin -->` and `<!-- compare-table:end -->` in \
                docs/findings.md";
    let start = findings
        .find(BEGIN)
        .unwrap_or_else(|| panic!("docs/findings.md lacks the markers: {help}"));
    let end = findings
        .find(END)
        .unwrap_or_else(|| panic!("docs/findings.md lacks the markers: {help}"));
    assert_eq!(
        &findings[start + BEGIN.len()..end],
        expected,
        "stale: {help}"
    );
}

/// Whether `merged` (a compare row's check) reads as `wording` with some of its numbers shown
/// as `n`: walking both, a run of digits in `wording` meets the same digits or an `n`.
fn fits(merged: &str, wording: &str) -> bool {
    let (m, w) = (merged.as_bytes(), wording.as_bytes());
    let (mut i, mut j) = (0, 0);
    while j < w.len() {
        if w[j].is_ascii_digit() {
            let end = (j..w.len())
                .find(|&k| !w[k].is_ascii_digit())
                .unwrap_or(w.len());
            if m.get(i) == Some(&b'n') && m.get(i + 1).is_none_or(|c| !c.is_ascii_digit()) {
                i += 1;
            } else if m.get(i..i + (end - j)) == Some(&w[j..end]) {
                i += end - j;
            } else {
                return false;
            }
            j = end;
        } else if m.get(i) == Some(&w[j]) {
            i += 1;
            j += 1;
        } else {
            return false;
        }
    }
    i == m.len()
}

/// No compare row is named `n`: each row's check is, for every file that has the check, that
/// file's own wording with at most its numbers replaced by `n` (wordings that differ in words
/// are each kept, joined by " / "). Over the SG 8, SG 4 and H200 references, and all four.
#[test]
fn no_check_is_named_n() {
    let _cpu = util::gpu_shared();
    assert!(fits("F(n) matches", "F(32) matches"));
    assert!(fits("k <= 8", "k <= 8"));
    assert!(!fits("n", "subgroup width inferred from timing"));
    assert!(!fits("F(n) matches", "F(32) differs"));
    let three = [SG8, SG4, H200].map(reference).to_vec();
    for files in [three, all_references()] {
        let docs = read_documents(&files).unwrap_or_else(|e| panic!("{e}"));
        let cmp = Comparison::new(&docs, &catalog());
        let mut rows = 0;
        for table in &cmp.experiments {
            for row in &table.verdicts {
                rows += 1;
                assert_ne!(
                    row.check.trim(),
                    "n",
                    "{}: a row named n: {row:?}",
                    table.id
                );
                let parts: Vec<&str> = row.check.split(" / ").collect();
                for (_, doc) in &docs {
                    let Some(e) = doc.experiments.iter().find(|e| e.id == table.id) else {
                        continue;
                    };
                    for v in e
                        .verdicts
                        .iter()
                        .filter(|v| !v.key.is_empty() && v.key == row.key)
                    {
                        assert!(
                            parts.iter().any(|p| fits(p, &v.check)),
                            "{}: row `{}` does not read as `{}`",
                            table.id,
                            row.check,
                            v.check
                        );
                    }
                }
            }
        }
        assert!(rows > 50, "only {rows} verdict rows");
        for text in [cmp.to_text(), cmp.to_markdown(), cmp.to_csv()] {
            for line in text.lines() {
                let first = line
                    .trim_start_matches(['|', ' ', '!'])
                    .trim_start_matches("**");
                assert!(
                    !(first.starts_with("n ")
                        || first.starts_with("n*")
                        || first.starts_with("n|")),
                    "a row named n: {line}"
                );
            }
        }
    }
}

/// The verdicts of `key` in experiment `id` of each file.
fn status_of(doc: &ResultDocument, id: &str, key: &str) -> Option<VerdictStatus> {
    doc.experiments
        .iter()
        .find(|e| e.id == id)?
        .verdicts
        .iter()
        .find(|v| v.key == key)
        .map(|v| v.status)
}

/// `--fail-on-difference` (`--fail-on any`) gates CI: 1 where a verdict moved between decided
/// states, 0 for two copies of one file; the library counts the SG 8 and H200 references'
/// differing verdicts as a search by key does, without the comparison code.
#[test]
fn fail_on_difference_gates() {
    let _cpu = util::gpu_shared();
    let (sg8, h200) = (load(SG8), load(H200));
    let differing: Vec<String> = sg8
        .experiments
        .iter()
        .flat_map(|e| e.verdicts.iter().map(move |v| (e, v)))
        .filter(|(e, v)| {
            !v.key.is_empty() && status_of(&h200, &e.id, &v.key).is_some_and(|s| s != v.status)
        })
        .map(|(e, v)| format!("{}.{}", e.id, v.key))
        .collect();
    assert!(
        !differing.is_empty(),
        "the SG 8 and H200 references agree on every verdict"
    );
    let dir = temp_dir();
    let copy = path_in(&dir, "copy.json");
    std::fs::copy(reference(SG8), &copy).expect("copying the SG 8 reference");
    // A move to or from `inconclusive` never gates, and which verdicts two real runs leave
    // inconclusive is noise: the gated pair is the SG 8 file and a copy with one verdict moved
    // from consistent to inconsistent.
    let flipped = path_in(&dir, "flipped.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reference(SG8)).unwrap()).unwrap();
    let consistent = (doc["experiments"].as_array_mut().unwrap().iter_mut())
        .flat_map(|e| e["verdicts"].as_array_mut().unwrap().iter_mut())
        .find(|v| v["status"] == "consistent")
        .expect("a consistent verdict in the SG 8 reference");
    consistent["status"] = "inconsistent".into();
    std::fs::write(&flipped, doc.to_string()).unwrap();
    let cases: [(Vec<std::ffi::OsString>, i32); 5] = [
        (vec![reference(SG8).into(), flipped.clone().into()], 1),
        (
            vec![
                "--baseline".into(),
                reference(SG8).into(),
                flipped.clone().into(),
            ],
            1,
        ),
        (vec![reference(SG8).into(), copy.clone().into()], 0),
        (
            vec![
                "--baseline".into(),
                reference(SG8).into(),
                copy.clone().into(),
            ],
            0,
        ),
        // Without the flag a difference is shown, not an error.
        (vec![reference(SG8).into(), reference(H200).into()], 0),
    ];
    for (i, (args, code)) in cases.into_iter().enumerate() {
        let mut cmd = divlab(dir.path());
        cmd.arg("compare").args(&args);
        if i < 4 {
            cmd.arg("--fail-on-difference");
        }
        let out = run(cmd);
        out.assert_code(code);
        if code == 1 {
            assert!(
                out.stderr.contains("fail the gate (--fail-on any)"),
                "no reason on stderr\n{out}"
            );
            assert!(out.stdout.contains("!"), "the table marks no row\n{out}");
        }
    }
    // The library's count agrees with the keys found above (a check both files have).
    let docs = read_documents(&[reference(SG8), reference(H200)]).unwrap_or_else(|e| panic!("{e}"));
    let cmp = Comparison::new(&docs, &catalog());
    assert_eq!(
        cmp.verdicts_differing_from(0),
        differing.len(),
        "{differing:?}"
    );
}

/// A document path that names an input file, or a `.json` file, is refused, not written over:
/// `--markdown` was once a switch, so `compare --markdown a.json b.json` must not replace a.json.
#[test]
fn compare_never_overwrites_an_input() {
    let _cpu = util::gpu_shared();
    let dir = temp_dir();
    let a = path_in(&dir, "a.json");
    let b = path_in(&dir, "b.out");
    std::fs::copy(reference(SG8), &a).expect("copying the SG 8 reference");
    std::fs::copy(reference(SG8), &b).expect("copying the SG 8 reference");
    let before = std::fs::read(&a).expect("a.json");
    let cases: [(&[&str], &str); 3] = [
        (&["--markdown", "a.json"], "looks like a result file"),
        (
            &["--csv", "b.out", "b.out"],
            "would overwrite an input file",
        ),
        (
            &["-o", "./a.json", "a.json"],
            "would overwrite an input file",
        ),
    ];
    for (args, reason) in cases {
        let mut cmd = divlab(dir.path());
        cmd.arg("compare").args(args).arg(reference(SG4));
        let out = run(cmd);
        out.assert_code(2);
        assert!(out.stderr.contains(reason), "{out}");
    }
    assert_eq!(std::fs::read(&a).expect("a.json"), before, "a.json changed");
    assert_eq!(std::fs::read(&b).expect("b.out"), before, "b.out changed");
}

// ---- Bad input: one test per kind. Each names the file and the field, through the library and
// ---- through `divlab compare` (exit 2, no panic).

/// The first divergence experiment's index in `doc`, where the damage goes.
fn divergence_index(doc: &ResultDocument) -> usize {
    doc.experiments
        .iter()
        .position(|e| e.id.starts_with("divergence."))
        .expect("the reference files hold the divergence study")
}

/// `SG8` as a JSON value, to damage.
fn sg8_value() -> (Value, usize) {
    let doc = load(SG8);
    (
        serde_json::to_value(&doc).expect("serializes"),
        divergence_index(&doc),
    )
}

/// Writes `text` as `bad.json` and checks that reading it fails naming the file and every
/// needle, both through `read_json` and through `divlab compare good.json bad.json`.
#[track_caller]
fn assert_rejected(text: &str, needles: &[&str]) {
    let dir = temp_dir();
    let path = path_in(&dir, "bad.json");
    std::fs::write(&path, text).expect("writing bad.json");
    assert_rejected_file(&dir, &path, needles);
}

#[track_caller]
fn assert_rejected_file(dir: &tempfile::TempDir, path: &Path, needles: &[&str]) {
    match read_json(path) {
        Err(e @ Error::ResultFile { .. }) => {
            let shown = e.to_string();
            assert!(
                shown.contains(&path.display().to_string()),
                "no file name: {shown}"
            );
            for n in needles {
                assert!(shown.contains(n), "`{n}` missing from: {shown}");
            }
            assert!(shown.len() < 1000, "a message, not a dump: {shown}");
        }
        other => panic!("expected Error::ResultFile, got {other:?}"),
    }
    let mut cmd = divlab(dir.path());
    cmd.arg("compare").arg(reference(SG4)).arg(path);
    let out = run(cmd);
    out.assert_code(2);
    assert!(out.stderr.contains(&path.display().to_string()), "{out}");
    for n in needles {
        assert!(out.stderr.contains(n), "`{n}` missing\n{out}");
    }
    assert!(out.stdout.is_empty(), "printed a table anyway\n{out}");
}

/// Serializes `value` with a placeholder string swapped for raw text JSON cannot express.
fn with_raw(value: &Value, placeholder: &str, raw: &str) -> String {
    let text = serde_json::to_string_pretty(value).expect("serializes");
    let quoted = format!("\"{placeholder}\"");
    assert!(text.contains(&quoted), "the placeholder is not in the text");
    text.replacen(&quoted, raw, 1)
}

#[test]
fn truncated_file_is_rejected() {
    let _cpu = util::gpu_shared();
    let text = std::fs::read_to_string(reference(SG8)).expect("readable");
    let half = (0..=text.len() / 2)
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .expect("0 is a boundary");
    assert_rejected(&text[..half], &["truncated", "ends early"]);
}

#[test]
fn wrong_schema_version_is_rejected() {
    let _cpu = util::gpu_shared();
    let (mut v, _) = sg8_value();
    v["schema_version"] = json!(4);
    assert_rejected(
        &v.to_string(),
        &["schema_version 4 is not a version this divlab reads (1, 2, 3)"],
    );
    // Every unreadable file is named, and `report` writes nothing.
    let dir = temp_dir();
    let (a, b) = (path_in(&dir, "a.json"), path_in(&dir, "b.json"));
    std::fs::write(&a, v.to_string()).unwrap();
    std::fs::write(&b, "{").unwrap();
    let mut cmd = divlab(dir.path());
    cmd.arg("report").args([&a, &b]).args(["-o", "r.html"]);
    let out = run(cmd);
    out.assert_code(2);
    assert!(
        out.stderr.contains("2 result files cannot be read"),
        "{out}"
    );
    assert!(
        out.stderr.contains("a.json") && out.stderr.contains("b.json"),
        "{out}"
    );
    assert!(!path_in(&dir, "r.html").exists(), "a report was written");
}

#[test]
fn wrong_types_name_the_field() {
    let _cpu = util::gpu_shared();
    let (v, i) = sg8_value();
    /// Damages the document (given the divergence experiment's index).
    type Damage = fn(&mut Value, usize);
    let cases: [(Damage, String); 3] = [
        (
            |v, i| v["experiments"][i]["metrics"]["r2"] = json!("high"),
            format!("experiments[{i}].metrics.r2: invalid type: string \"high\""),
        ),
        (
            |v, i| v["experiments"][i]["series"][0]["points"][1]["x"] = json!(true),
            format!("experiments[{i}].series[0].points[1].x: invalid type: boolean"),
        ),
        (
            |v, _| v["adapter"]["subgroup_max_size"] = json!(-32),
            "adapter.subgroup_max_size: invalid value: integer `-32`".to_owned(),
        ),
    ];
    for (damage, needle) in cases {
        let mut v = v.clone();
        damage(&mut v, i);
        assert_rejected(&v.to_string(), &[&needle]);
    }
}

#[test]
fn nan_is_rejected_with_its_field() {
    let _cpu = util::gpu_shared();
    let (mut v, i) = sg8_value();
    v["experiments"][i]["metrics"]["r2"] = json!("PLACEHOLDER");
    let field = format!("experiments[{i}].metrics.r2");
    // Python's json module writes a bare NaN; others quote it.
    assert_rejected(
        &with_raw(&v, "PLACEHOLDER", "NaN"),
        &[&format!("{field}: `NaN` is not a JSON number")],
    );
    assert_rejected(
        &with_raw(&v, "PLACEHOLDER", "\"NaN\""),
        &[&field, "NaN", "cannot be stored"],
    );
}

#[test]
fn infinity_is_rejected_with_its_field() {
    let _cpu = util::gpu_shared();
    let (mut v, i) = sg8_value();
    v["experiments"][i]["series"][0]["points"][0]["y"] = json!("PLACEHOLDER");
    let field = format!("experiments[{i}].series[0].points[0].y");
    assert_rejected(
        &with_raw(&v, "PLACEHOLDER", "1e999"),
        &[&format!("{field}: 1e999 is beyond the range")],
    );
    assert_rejected(
        &with_raw(&v, "PLACEHOLDER", "-Infinity"),
        &[&format!("{field}: `-Infinity` is not a JSON number")],
    );
}

#[test]
fn huge_arrays_are_rejected() {
    let _cpu = util::gpu_shared();
    let (mut v, i) = sg8_value();
    v["experiments"][i]["series"][0]["points"] = json!("PLACEHOLDER");
    // The length is refused before anything is parsed, so the entries need not be points.
    let many = format!("[{}0]", "0,".repeat(MAX_ARRAY_LEN));
    assert_rejected(
        &with_raw(&v, "PLACEHOLDER", &many),
        &[&format!(
            "experiments[{i}].series[0].points: more than {MAX_ARRAY_LEN} entries"
        )],
    );
    // A lane record is one subgroup: at most 128 lanes, and one ballot and value per lane.
    let mut doc = load(SG8);
    let lanes = |n: u32, ballots: usize| LaneRecord {
        point: 0,
        subgroup: 0,
        local_index: (0..n).collect(),
        ballot: vec![[1, 0, 0, 0]; ballots],
        value: vec![0; n as usize],
    };
    doc.experiments[0].lanes = vec![lanes(8, 8), lanes(129, 129)];
    let dir = temp_dir();
    let path = write_doc(&dir, "lanes.json", &doc);
    assert_rejected_file(
        &dir,
        &path,
        &["experiments[0].lanes[1].local_index: 129 lanes"],
    );
    doc.experiments[0].lanes = vec![lanes(8, 7)];
    let path = write_doc(&dir, "ballots.json", &doc);
    assert_rejected_file(
        &dir,
        &path,
        &["experiments[0].lanes[0].ballot: 7 entries, but local_index has 8"],
    );
}

#[test]
fn deep_nesting_is_rejected() {
    let _cpu = util::gpu_shared();
    let (mut v, i) = sg8_value();
    v["experiments"][i]["params"]["deep"] = json!("PLACEHOLDER");
    // Deeper than serde_json's own limit (128), which would name no field.
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert_rejected(
        &with_raw(&v, "PLACEHOLDER", &deep),
        &[
            &format!("experiments[{i}].params.deep[0][0]"),
            &format!("nested more than {MAX_DEPTH} levels deep"),
        ],
    );
}

#[test]
fn oversized_file_is_rejected_before_reading() {
    let _cpu = util::gpu_shared();
    let dir = temp_dir();
    let path = path_in(&dir, "huge.json");
    // Sparse: costs no disk, and a reader that read it all would take seconds and 64 MiB.
    let file = std::fs::File::create(&path).expect("create");
    file.set_len(MAX_FILE_BYTES + 1).expect("set_len");
    let start = std::time::Instant::now();
    assert_rejected_file(&dir, &path, &["divlab reads result files up to 64 MiB"]);
    assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
}

// ---- The loader, hammered: damaged real documents never panic the loader or, once accepted,
// ---- any consumer (compare, Markdown, CSV, HTML).

/// A small real document: the reference file's subgroup probe (with lane records) and its first
/// divergence experiment, so each case is quick.
fn fuzz_base() -> (ResultDocument, String) {
    let mut doc = load(SG4);
    let i = divergence_index(&doc);
    doc.experiments = vec![doc.experiments[0].clone(), doc.experiments[i].clone()];
    let text = serde_json::to_string_pretty(&doc).expect("serializes");
    (doc, text)
}

/// Tokens that break parsers: non-JSON numbers, overflow, unbalanced brackets, escapes.
const NASTY: &[&str] = &[
    "NaN",
    "-Infinity",
    "1e999",
    "-0",
    "18446744073709551616",
    "[[[[[[[[",
    "]]]]",
    "{\"a\":",
    "\"",
    "\\",
    "\\u0000",
    "\u{0}",
    "null",
    ",",
    ":",
    "\"schema_version\": 3,",
    "true",
    "é",
    "1.7976931348623157e308",
];

#[derive(Clone, Debug)]
enum Edit {
    Cut(prop::sample::Index),
    Delete(prop::sample::Index, usize),
    Insert(prop::sample::Index, &'static str),
    Byte(prop::sample::Index, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        1 => any::<prop::sample::Index>().prop_map(Edit::Cut),
        3 => (any::<prop::sample::Index>(), 1..40usize).prop_map(|(i, n)| Edit::Delete(i, n)),
        4 => (any::<prop::sample::Index>(), prop::sample::select(NASTY))
            .prop_map(|(i, s)| Edit::Insert(i, s)),
        3 => (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Edit::Byte(i, b)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for e in edits {
        let at = |i: &prop::sample::Index| i.index(bytes.len() + 1);
        match e {
            Edit::Cut(i) => bytes.truncate(at(i)),
            Edit::Delete(i, n) => {
                let start = at(i).min(bytes.len());
                bytes.drain(start..(start + n).min(bytes.len()));
            }
            Edit::Insert(i, s) => {
                let start = at(i);
                bytes.splice(start..start, s.bytes());
            }
            Edit::Byte(i, b) if !bytes.is_empty() => {
                let i = i.index(bytes.len());
                bytes[i] = *b;
            }
            Edit::Byte(..) => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Any JSON value, a few levels deep, with numbers at the edges of their types.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z_ .]{0,12}".prop_map(Value::from),
        prop::sample::select(vec!["ok", "held", "violated", "gpu_timestamp", "NaN"])
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,10}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// JSON pointers to every node of `value`.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .for_each(|(i, v)| pointers(v, format!("{at}/{i}"), out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            pointers(
                v,
                format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                out,
            )
        }),
        _ => {}
    }
    out.push(at);
}

/// Longest one case may take. A case takes milliseconds; a hang (plotters once looped for hours
/// on a log axis spanning 600 decades) fails here with its input instead of stalling CI.
const CASE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);

/// Loader outcomes every case must have, within [`CASE_DEADLINE`]: an error is a short message;
/// an accepted document is safe to hand to every consumer.
fn check_outcome(text: String, base: &ResultDocument) -> Result<(), TestCaseError> {
    let (tx, rx) = std::sync::mpsc::channel();
    let base = base.clone();
    let input = text.clone();
    // A case that never ends leaves its thread behind; the test binary exits all the same.
    std::thread::spawn(move || {
        let _ = tx.send(std::panic::catch_unwind(|| outcome(&input, &base)));
    });
    match rx.recv_timeout(CASE_DEADLINE) {
        Ok(Ok(result)) => result,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => {
            let saved = std::env::temp_dir().join("divlab-slow-case.json");
            let _ = std::fs::write(&saved, &text);
            Err(TestCaseError::fail(format!(
                "a case took over {CASE_DEADLINE:?}; its input is in {}",
                saved.display()
            )))
        }
    }
}

fn outcome(text: &str, base: &ResultDocument) -> Result<(), TestCaseError> {
    match parse_json(text) {
        Err(reason) => {
            prop_assert!(!reason.is_empty());
            prop_assert!(
                reason.len() < 1500,
                "a message, not a dump: {}",
                reason.len()
            );
        }
        Ok(doc) => {
            for e in &doc.experiments {
                prop_assert!(e.metrics.values().all(|v| v.is_finite()));
                for l in &e.lanes {
                    prop_assert!(l.ballot.len() == l.local_index.len());
                }
            }
            let docs = vec![("base".to_owned(), base.clone()), ("case".to_owned(), doc)];
            let cmp = Comparison::new(&docs, &catalog());
            let _ = (cmp.to_text(), cmp.to_markdown(), cmp.to_csv());
            let _ = html_report(&docs, &catalog());
        }
    }
    Ok(())
}

/// Cases per property: `PROPTEST_CASES` where set (to hammer longer), else a number that keeps
/// this test to seconds in CI.
fn fuzz_config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        // Failures are reported with the shrunk input; CI leaves no files in the source tree.
        failure_persistence: None,
        // Shrinking a slow case reruns it; keep the whole test bounded.
        max_shrink_time: 60_000,
        ..ProptestConfig::default()
    }
}

#[test]
fn loader_survives_damaged_documents() {
    let _cpu = util::gpu_shared();
    let (base, text) = fuzz_base();
    assert_eq!(
        parse_json(&text).as_ref(),
        Ok(&base),
        "the base document reads back"
    );
    let value: Value = serde_json::from_str(&text).expect("JSON");
    let mut nodes = Vec::new();
    pointers(&value, String::new(), &mut nodes);
    let mut runner = proptest::test_runner::TestRunner::new(fuzz_config());
    runner
        .run(&prop::collection::vec(edit(), 1..6), |edits| {
            check_outcome(apply(&text, &edits), &base)
        })
        .unwrap_or_else(|e| panic!("byte edits: {e}"));
    let mut runner = proptest::test_runner::TestRunner::new(fuzz_config());
    runner
        .run(
            &(any::<prop::sample::Index>(), json_value(), any::<bool>()),
            |(at, replacement, delete)| {
                let mut v = value.clone();
                let pointer = at.get(&nodes);
                let (parent, key) = pointer.rsplit_once('/').unwrap_or(("", ""));
                match (delete, v.pointer_mut(parent)) {
                    (true, Some(Value::Object(map))) => {
                        map.remove(&key.replace("~1", "/").replace("~0", "~"));
                    }
                    _ => match v.pointer_mut(pointer) {
                        Some(node) => *node = replacement,
                        None => v = replacement,
                    },
                }
                check_outcome(v.to_string(), &base)
            },
        )
        .unwrap_or_else(|e| panic!("value edits: {e}"));
}
