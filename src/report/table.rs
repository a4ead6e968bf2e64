//! The human summary `--bench` prints: one block per experiment, verdicts underneath.

use std::fmt::Write as _;

use crate::report::{ExperimentResult, ExperimentStatus, ResultDocument, VerdictStatus};

/// Metrics shown in the summary line, in this order, when an experiment has them.
const KEY_METRICS: &[&str] = &[
    "observed_subgroup_size",
    "fma_ns",
    "fma_gflops",
    "timer_scaling_4x",
    "slope_s_ns",
    "r2",
    "serialization_at_sg",
    "serialization_at_sg_raw",
    "dispatch_floor_ns",
    "predicated_ratio_at_sg",
    "baseline_gflops",
    "occupancy_spread",
    "cv_median",
    "interleaved_fraction",
    "overlap_fraction",
    "pass_rate_maximal",
    "pass_rate_subgroup",
    "pass_rate_workgroup",
];

/// Formats the document as the table `--bench` prints on stdout.
pub fn summary_table(doc: &ResultDocument) -> String {
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
    let (scenarios, others): (Vec<_>, Vec<_>) = doc
        .experiments
        .iter()
        .partition(|e| e.id.starts_with(CONVERGENCE_PREFIX) && e.status == ExperimentStatus::Ok);
    for e in others {
        let status = match e.status {
            ExperimentStatus::Ok => "ok",
            ExperimentStatus::Unsupported => "unsupported",
            ExperimentStatus::Error => "ERROR",
        };
        let _ = writeln!(out, "{:<28} {:<11} {}", e.id, status, e.title);
        if !e.status_detail.is_empty() {
            let _ = writeln!(out, "    {}", e.status_detail);
        }
        let figures: Vec<String> = KEY_METRICS
            .iter()
            .filter_map(|k| e.metrics.get(*k).map(|v| format!("{k}={}", fmt_number(*v))))
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
        out.push_str(&convergence_table(&scenarios));
    }
    out
}

const CONVERGENCE_PREFIX: &str = "convergence.";

/// One row per convergence scenario: its guaranteed checks folded into one verdict, and what
/// WGSL leaves open (in-branch sets, reconvergence) as a short observation. A violated check is
/// spelled out under the table; the rest is in the result file.
fn convergence_table(scenarios: &[&ExperimentResult]) -> String {
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
            e.id.trim_start_matches(CONVERGENCE_PREFIX),
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

fn fmt_number(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e9 {
        format!("{v:.0}")
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.4}")
    }
}

/// Columns of the key-figures table: (header, metric, decimals). A metric with `_ci_low` and
/// `_ci_high` companions shows its 95% interval beside it.
const KEY_TABLE: &[(&str, &str, usize)] = &[
    ("s (ns/path)", "slope_s_ns", 0),
    ("R²", "r2", 4),
    ("F(SG) (95% interval)", "serialization_at_sg", 2),
    ("F(SG) raw", "serialization_at_sg_raw", 2),
    ("floor (ns)", "dispatch_floor_ns", 0),
    ("T_pred(SG)/T_pred(1)", "predicated_ratio_at_sg", 3),
    ("baseline GFLOP/s", "baseline_gflops", 0),
    ("occupancy spread", "occupancy_spread", 3),
    ("CV (median)", "cv_median", 4),
];

/// A Markdown table of the divergence study's key figures, one row per (document, experiment).
/// The README's table is this function's output over `assets/reference/*.json`.
pub fn markdown_key_table(docs: &[(String, ResultDocument)]) -> String {
    let mut out = String::from("| file | adapter | SG | experiment |");
    for (header, _, _) in KEY_TABLE {
        let _ = write!(out, " {header} |");
    }
    out.push_str("\n|---|---|---|---|");
    out.push_str(&"---|".repeat(KEY_TABLE.len()));
    out.push('\n');
    for (file, doc) in docs {
        let sg = doc
            .adapter
            .observed_subgroup_size
            .map_or_else(|| "?".to_owned(), |s| s.to_string());
        for e in doc
            .experiments
            .iter()
            .filter(|e| e.id.starts_with("divergence."))
        {
            let _ = write!(out, "| {file} | {} | {sg} | {} |", doc.adapter.name, e.id);
            for (_, metric, decimals) in KEY_TABLE {
                let interval = |bound: &str| e.metrics.get(&format!("{metric}_ci_{bound}"));
                match (e.metrics.get(*metric), interval("low"), interval("high")) {
                    (Some(v), Some(low), Some(high)) => {
                        let _ = write!(
                            out,
                            " {v:.decimals$} ({low:.decimals$}–{high:.decimals$}) |"
                        );
                    }
                    (Some(v), _, _) => {
                        let _ = write!(out, " {v:.decimals$} |");
                    }
                    (None, _, _) => out.push_str(" – |"),
                }
            }
            out.push('\n');
        }
    }
    out
}
