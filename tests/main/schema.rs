//! The result schema's stable keys and the run loop's cancel: every verdict carries a key that
//! files from different devices share, every declared key figure is a metric the experiments
//! really write, older documents still read and line up with new ones, and cancelling a run
//! stops it within a second and records the interrupted experiment as cancelled.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use divlab::bench::{BenchConfig, BenchEvent, run_bench};
use divlab::experiments::{Lab, RunConfig, catalog};
use divlab::report::{
    Comparison, ErrorKind, ExperimentStatus, ResultDocument, SCHEMA_VERSION, read_json,
};

use crate::util;

fn references() -> Vec<(String, ResultDocument)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/reference");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("assets/reference exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let doc = read_json(&p).unwrap_or_else(|e| panic!("{e}"));
            (p.file_name().unwrap().to_string_lossy().into_owned(), doc)
        })
        .collect()
}

fn fixture(name: &str) -> ResultDocument {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    read_json(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The references are real runs of this build's schema: every verdict has a key, unique within
/// its experiment, so `compare` can line checks up whatever their wording.
#[test]
fn every_reference_verdict_has_a_unique_key() {
    for (file, doc) in references() {
        assert_eq!(doc.schema_version, SCHEMA_VERSION, "{file}");
        for e in &doc.experiments {
            let mut seen = HashSet::new();
            for v in &e.verdicts {
                assert!(
                    !v.key.is_empty(),
                    "{file}: {} `{}` has no key",
                    e.id,
                    v.check
                );
                assert!(
                    seen.insert(v.key.as_str()),
                    "{file}: {} repeats key `{}`",
                    e.id,
                    v.key
                );
            }
        }
    }
}

/// Each experiment's declared key figures are metrics its results really hold, and a figure
/// that decides a verdict names a verdict key the experiment writes: a renamed metric or key
/// would otherwise drop out of every table silently.
#[test]
fn declared_figures_and_verdict_keys_exist_in_real_results() {
    let docs = references();
    let catalog = catalog();
    for info in catalog.iter() {
        let results: Vec<_> = docs
            .iter()
            .flat_map(|(_, d)| &d.experiments)
            .filter(|e| e.id == info.id && e.status == ExperimentStatus::Ok)
            .collect();
        if results.is_empty() {
            continue; // Not in the references (e.g. a form the study does not register).
        }
        for f in info.figures {
            assert!(
                results.iter().any(|e| e.metrics.contains_key(f.key)),
                "{}: declared figure `{}` is in no reference result",
                info.id,
                f.key
            );
            if let Some(key) = f.decides {
                assert!(
                    results
                        .iter()
                        .any(|e| e.verdicts.iter().any(|v| v.key == key)),
                    "{}: figure `{}` decides verdict `{key}`, which no result has",
                    info.id,
                    f.key
                );
            }
        }
    }
}

/// Verdicts match across files by key: the F(SG) check is worded "F(8)" on lavapipe and
/// "F(32)" on the H200 and still lands on one row, under its key.
#[test]
fn checks_worded_with_the_subgroup_size_share_one_row() {
    let docs: Vec<_> = references()
        .into_iter()
        .filter(|(f, _)| f == "lavapipe-sg8.json" || f == "nvidia-h200.json")
        .collect();
    assert_eq!(docs.len(), 2, "both references exist");
    let cmp = Comparison::new(&docs, &catalog());
    let switch = cmp
        .experiments
        .iter()
        .find(|t| t.id == "divergence.switch")
        .expect("both files have the switch form");
    let rows: Vec<_> = switch
        .verdicts
        .iter()
        .filter(|v| v.key == "simt_model")
        .collect();
    assert_eq!(rows.len(), 1, "{:#?}", switch.verdicts);
    assert!(rows[0].statuses.iter().all(Option::is_some), "{rows:#?}");
    let wordings: Vec<&str> = docs
        .iter()
        .flat_map(|(_, d)| &d.experiments)
        .filter(|e| e.id == "divergence.switch")
        .flat_map(|e| &e.verdicts)
        .filter(|v| v.key == "simt_model")
        .map(|v| v.check.as_str())
        .collect();
    assert_ne!(wordings[0], wordings[1], "the wordings differ by device");
    assert!(rows[0].check.contains("F(n)"), "{}", rows[0].check);
}

/// A schema 2 document (a real lavapipe run before keys) reads, and its checks line up with a
/// schema 3 document's by wording.
#[test]
fn schema_2_documents_read_and_match_new_ones_by_wording() {
    let old = fixture("schema2-lavapipe-sg8.json");
    assert_eq!(old.schema_version, 2);
    assert!(
        old.experiments
            .iter()
            .flat_map(|e| &e.verdicts)
            .all(|v| v.key.is_empty())
    );
    let new = references()
        .into_iter()
        .find(|(f, _)| f == "nvidia-h200.json")
        .expect("the H200 reference exists");
    let docs = vec![("old.json".to_owned(), old), new];
    let cmp = Comparison::new(&docs, &catalog());
    for id in ["subgroup.size", "divergence.switch", "scheduling.run_ahead"] {
        let table = cmp
            .experiments
            .iter()
            .find(|t| t.id == id)
            .expect("both files have it");
        let in_both = table
            .verdicts
            .iter()
            .filter(|v| v.statuses.iter().all(Option::is_some))
            .count();
        let old_checks = docs[0]
            .1
            .experiments
            .iter()
            .find(|e| e.id == id)
            .unwrap()
            .verdicts
            .len();
        assert_eq!(
            in_both, old_checks,
            "{id}: every old check matches a new one: {:#?}",
            table.verdicts
        );
    }
}

/// Cancel takes effect inside an experiment: a long divergence study, cancelled a second after
/// it has compiled its pipelines (while it warms up, calibrates or times), stops within a second
/// of the cancel, is recorded as cancelled (never as a result), and nothing after it runs. A
/// pipeline build itself cannot be interrupted: on a cold Mesa shader cache one of the study's
/// takes seconds on 2 cores, so the cancel waits until they are built.
#[test]
fn cancel_stops_a_running_experiment_within_a_second() {
    // Alone on the machine: the latency measured is the run loop's, not other tests' load.
    let _gpu = util::gpu_exclusive();
    let lab = Lab::new(util::gpu());
    let token = lab.gpu.cancel_token();
    let config = BenchConfig {
        run: RunConfig {
            quick: false,
            ..RunConfig::default()
        },
        only: None,
        ids: Some(vec![
            "divergence.switch".to_owned(),
            "divergence.loop".to_owned(),
        ]),
    };
    let cancelled_at = std::sync::Mutex::new(None::<Instant>);
    // Set when the study reports progress 0.05: its pipelines are compiled.
    let compiled = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let started = Instant::now();
    let doc = std::thread::scope(|s| {
        s.spawn(|| {
            while !compiled.load(Ordering::Relaxed) {
                if done.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            std::thread::sleep(Duration::from_secs(1));
            *cancelled_at.lock().unwrap() = Some(Instant::now());
            token.cancel();
        });
        let doc = run_bench(&lab, &config, &|event| match event {
            BenchEvent::Progress(f) if f >= 0.05 => compiled.store(true, Ordering::Relaxed),
            BenchEvent::Finished(r) => {
                assert_eq!(r.id, "divergence.switch", "only the first one runs");
            }
            _ => {}
        });
        done.store(true, Ordering::Relaxed);
        doc
    });
    let stopped = Instant::now();
    let cancelled_at = cancelled_at
        .into_inner()
        .unwrap()
        .expect("the run lasted past the cancel");
    let latency = stopped - cancelled_at;
    assert!(
        latency < Duration::from_secs(1),
        "stopped {latency:?} after the cancel ({:?} in all)",
        stopped - started
    );
    let ids: Vec<&str> = doc.experiments.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["divergence.switch"]);
    let switch = &doc.experiments[0];
    assert_eq!(switch.status, ExperimentStatus::Cancelled);
    assert_eq!(switch.error_kind, Some(ErrorKind::Cancelled));
    assert!(switch.verdicts.is_empty() && switch.metrics.is_empty());
}

/// A GPU that does not finish in time is an `error` whose kind says `timeout`, and the run's exit
/// code is 3, not the 1 of an ordinary failure: a hung GPU voids later results.
#[test]
fn a_timeout_keeps_its_kind_up_to_the_exit_code() {
    let _gpu = util::gpu_shared();
    let mut gpu = util::gpu();
    // No divergence study finishes a dispatch in a microsecond, not even on an H200.
    gpu.timeout = Duration::from_micros(1);
    let lab = Lab::new(gpu);
    let config = BenchConfig {
        run: RunConfig {
            quick: true,
            ..RunConfig::default()
        },
        only: None,
        ids: Some(vec!["divergence.switch".to_owned()]),
    };
    let doc = run_bench(&lab, &config, &|_| {});
    let switch = &doc.experiments[0];
    assert_eq!(
        switch.status,
        ExperimentStatus::Error,
        "{}",
        switch.status_detail
    );
    assert_eq!(switch.error_kind, Some(ErrorKind::Timeout));
    assert!(
        switch.status_detail.contains("did not finish"),
        "{}",
        switch.status_detail
    );
    assert_eq!(divlab::bench::exit_code(&doc), 3);
    let mut failed = doc.clone();
    failed.experiments[0].error_kind = Some(ErrorKind::Wgpu);
    assert_eq!(divlab::bench::exit_code(&failed), 1);
}
