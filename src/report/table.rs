//! The human summary `--bench` prints: one block per experiment, verdicts underneath.

use std::fmt::Write as _;

use crate::report::compare_render::md;
use crate::report::{
    Catalog, ExperimentResult, ExperimentStatus, Family, ResultDocument, VerdictStatus,
};

/// The experiment whose declared figures head the key-figures table: every divergence form
/// declares the same ones.
const STUDY: &str = "divergence.switch";

/// Formats the document as the table `--bench` prints on stdout, with the key figures that
/// `catalog` declares for each experiment.
pub fn summary_table(doc: &ResultDocument, catalog: &Catalog) -> String {
    let a = &doc.adapter;
    let mut out = String::new();
    let observed = a
        .observed_subgroup_size
        .map_or_else(|| "not measured".to_owned(), |s| s.to_string());
    let _ = writeln!(
        out,
        "adapter: {} ({}, {}, {} {})",
        a.name, a.backend, a.device_type, a.driver, a.driver_info
    );
    let inferred = a
        .inferred_subgroup_width
        .map_or_else(|| "not inferred".to_owned(), |w| w.to_string());
    let _ = writeln!(
        out,
        "observed subgroup size: {observed} (adapter reports {}..{}), inferred from timing: \
         {inferred}, timing: {:?}\n",
        a.subgroup_min_size, a.subgroup_max_size, a.timing_source
    );
    let (scenarios, others): (Vec<_>, Vec<_>) = doc.experiments.iter().partition(|e| {
        catalog.family(&e.id) == Some(Family::Convergence) && e.status == ExperimentStatus::Ok
    });
    for e in others {
        let status = match e.status {
            ExperimentStatus::Error => "ERROR",
            other => other.as_str(),
        };
        let _ = writeln!(out, "{:<28} {:<11} {}", e.id, status, e.title);
        if !e.status_detail.is_empty() {
            let _ = writeln!(out, "    {}", e.status_detail);
        }
        let figures: Vec<String> = catalog
            .figures(&e.id)
            .iter()
            .filter_map(|f| {
                let v = e.metrics.get(f.key)?;
                Some(format!("{}={v:.*}", f.key, f.decimals))
            })
            .collect();
        if !figures.is_empty() {
            let _ = writeln!(out, "    {}", figures.join("  "));
        }
        for v in &e.verdicts {
            let _ = writeln!(out, "    [{}] {}: {}", v.status.as_str(), v.check, v.detail);
        }
        if let Some(noisy) = e
            .params
            .get("noisy_configurations")
            .and_then(|v| v.as_array())
            && !noisy.is_empty()
        {
            let _ = writeln!(out, "    noisy configurations ({}):", noisy.len());
            for entry in noisy.iter().filter_map(|v| v.as_str()) {
                let _ = writeln!(out, "      {entry}");
            }
        }
    }
    if !scenarios.is_empty() {
        out.push_str(&convergence_table(&scenarios, catalog));
    }
    out
}

/// One row per convergence scenario: its guaranteed checks folded into one verdict, and what
/// WGSL leaves open (in-branch sets, reconvergence) as a short observation. A violated check is
/// spelled out under the table; the rest is in the result file.
fn convergence_table(scenarios: &[&ExperimentResult], catalog: &Catalog) -> String {
    let mut out = format!(
        "\n{:<22} {:<9} {:<38} rule\n",
        "convergence scenario", "verdict", "observed (WGSL guarantees neither)"
    );
    let mut violated = Vec::new();
    for e in scenarios {
        let verdict = if e.has_violation() {
            violated.push(*e);
            "VIOLATED"
        } else {
            "held"
        };
        let tally = |name: &str| {
            let sets = e
                .metrics
                .get(&format!("{name}_sets"))
                .copied()
                .unwrap_or(0.0);
            let together = e.metrics.get(&format!("{name}_sets_together")).copied();
            (sets > 0.0).then(|| format!("{}/{sets}", together.unwrap_or(0.0)))
        };
        let observation: Vec<String> = [
            tally("branch").map(|t| format!("together {t}")),
            tally("join").map(|t| format!("reconverged {t}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        let _ = writeln!(
            out,
            "{:<22} {verdict:<9} {:<34} {} ({})",
            catalog.get(&e.id).map_or(e.id.as_str(), |i| i.name()),
            observation.join("; "),
            e.rule.text,
            e.rule.source
        );
    }
    for e in violated {
        for v in e
            .verdicts
            .iter()
            .filter(|v| v.status == VerdictStatus::Violated)
        {
            let _ = writeln!(out, "{}: [violated] {}: {}", e.id, v.check, v.detail);
        }
    }
    out
}

/// A Markdown table of the divergence study's key figures (as `catalog` declares them), one row
/// per (document, experiment); a figure with an interval shows it beside the value. The
/// README's table is this function's output over `assets/reference/*.json`.
pub fn markdown_key_table(docs: &[(String, ResultDocument)], catalog: &Catalog) -> String {
    let figures = catalog.figures(STUDY);
    let mut out = String::from("| file | adapter | SG | experiment |");
    for f in figures {
        let _ = write!(out, " {} |", f.label);
    }
    out.push_str("\n|---|---|---|---|");
    out.push_str(&"---|".repeat(figures.len()));
    out.push('\n');
    for (file, doc) in docs {
        let sg = doc
            .adapter
            .observed_subgroup_size
            .map_or_else(|| "?".to_owned(), |s| s.to_string());
        for e in doc
            .experiments
            .iter()
            .filter(|e| catalog.family(&e.id) == Some(Family::Divergence))
        {
            // Names come from result files, written by any driver: escaped for Markdown.
            let _ = write!(
                out,
                "| {} | {} | {sg} | {} |",
                md(file),
                md(&doc.adapter.name),
                md(&e.id)
            );
            for f in figures {
                let (metric, decimals) = (f.key, f.decimals);
                match (e.metrics.get(metric), e.interval(metric)) {
                    (Some(v), Some((low, high))) => {
                        let _ = write!(
                            out,
                            " {v:.decimals$} ({low:.decimals$}–{high:.decimals$}) |"
                        );
                    }
                    (Some(v), None) => {
                        let _ = write!(out, " {v:.decimals$} |");
                    }
                    (None, _) => out.push_str(" – |"),
                }
            }
            out.push('\n');
        }
    }
    out
}
