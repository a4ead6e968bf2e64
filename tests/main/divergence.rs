//! The divergence cost study on the default adapter (lavapipe in CI): real kernels, real timing,
//! and the claims asserted as ratios with the study's own margins.

use divlab::experiments::divergence::Divergence;
use divlab::experiments::{Experiment, Lab, RunConfig, run_experiment};
use divlab::report::{ExperimentResult, ExperimentStatus, VerdictStatus, parse_json};

use crate::util;

fn verdict<'a>(result: &'a ExperimentResult, check: &str) -> &'a divlab::report::Verdict {
    result
        .verdicts
        .iter()
        .find(|v| v.check.contains(check))
        .unwrap_or_else(|| panic!("{}: no verdict about `{check}`", result.id))
}

fn metric(result: &ExperimentResult, name: &str) -> f64 {
    *result
        .metrics
        .get(name)
        .unwrap_or_else(|| panic!("{}: no metric `{name}` in {:?}", result.id, result.metrics))
}

/// Runs the divergence forms whose ids are listed, and checks that each ran.
fn run_forms(lab: &Lab, config: &RunConfig, ids: &[&str]) -> Vec<ExperimentResult> {
    let results: Vec<ExperimentResult> = Divergence::all()
        .iter()
        .filter(|e| ids.contains(&e.id()))
        .map(|e| run_experiment(lab, e, config, &|_| {}))
        .collect();
    assert_eq!(results.len(), ids.len(), "every listed form ran");
    for r in &results {
        assert_eq!(
            r.status,
            ExperimentStatus::Ok,
            "{}: {}",
            r.id,
            r.status_detail
        );
    }
    results
}

/// The timing claims of one form, as ratios with the study's margins; `Err` says which missed.
fn timing_claims(result: &ExperimentResult, sg: f64) -> Result<(), String> {
    let summary = format!("{}: {:#?}", result.id, result.verdicts);
    let f = metric(result, "serialization_at_sg");
    if !(sg * 0.875..=sg * 1.125).contains(&f) {
        return Err(format!(
            "F({sg}) = {f:.2} is not within 1/8 of {sg}\n{summary}"
        ));
    }
    let r2 = metric(result, "r2");
    if r2 < 0.98 {
        return Err(format!("R^2 = {r2:.4} < 0.98\n{summary}"));
    }
    let trend = metric(result, "uniform_trend_at_sg");
    if trend.abs() > 0.05 {
        return Err(format!(
            "uniform control trend {trend:+.3} is not flat\n{summary}"
        ));
    }
    Ok(())
}

/// k paths of equal work inside one subgroup serialize: F(SG) = T_div(SG)/T_uniform(SG) lies
/// within 1/8 of SG (7..9 on lavapipe's 8 lanes), T(k) is linear, the control is flat, and
/// every lane computed its own path's result.
///
/// The margins are the study's own, and lavapipe's timings on a shared 2-core machine are
/// noisy (CV 10-30% per dispatch), so a form whose timing claims miss is measured once more,
/// independently; it fails only if both measurements miss. Computed values are never retried.
#[test]
fn branchy_forms_serialize_k_paths() {
    let _gpu = util::gpu_exclusive();
    let lab = Lab::new(util::gpu());
    let sg = f64::from(lab.subgroup().expect("subgroup probe").size);
    let config = RunConfig {
        quick: true,
        reps: Some(15),
        fuzz_seeds: None,
    };
    let mut results = run_forms(&lab, &config, &["divergence.if_chain", "divergence.switch"]);
    for result in &mut results {
        assert_eq!(
            verdict(result, "own path's result").status,
            VerdictStatus::Held,
            "{}: {:#?}",
            result.id,
            result.verdicts
        );
        if let Err(first) = timing_claims(result, sg) {
            let again = run_forms(&lab, &config, &[result.id.as_str()]).remove(0);
            if let Err(second) = timing_claims(&again, sg) {
                panic!("missed twice.\nfirst run: {first}\nsecond run: {second}");
            }
            *result = again;
        }
    }
    // The results survive the result document's strict reader.
    let doc = divlab::report::ResultDocument {
        schema: divlab::report::result_schema_id(),
        schema_version: divlab::report::SCHEMA_VERSION,
        divlab_version: "test".to_owned(),
        created: "2026-01-01T00:00:00Z".to_owned(),
        adapter: divlab::bench::adapter_record(&lab),
        experiments: results,
    };
    let text = serde_json::to_string(&doc).expect("serializes");
    assert_eq!(parse_json(&text).expect("parses strictly"), doc);
}

/// The loop and nested-if forms compute the right value in every lane. (Their timing claims are
/// verdicts, not assertions: two repetitions on a shared CPU are too few to assert a ratio.)
#[test]
fn loop_and_nested_forms_compute_each_lanes_path() {
    let _gpu = util::gpu_exclusive();
    let lab = Lab::new(util::gpu());
    let config = RunConfig {
        quick: true,
        reps: Some(2),
        fuzz_seeds: None,
    };
    for result in run_forms(&lab, &config, &["divergence.loop", "divergence.nested_if"]) {
        let summary = format!("{}: {:#?}", result.id, result.verdicts);
        assert_eq!(
            verdict(&result, "own path's result").status,
            VerdictStatus::Held,
            "{summary}"
        );
    }
}

/// The study on an adapter without subgroup operations: lavapipe's Vulkan device with the
/// feature withheld (and, in the second case, timestamps too, so times come from the CPU's
/// wall clock). The no-subgroup kernels run, and the knee of F(k) shows the width that ballots
/// show when the feature is there (8, or 4 with `LP_NATIVE_VECTOR_WIDTH=128`).
fn infers_the_width_without(withheld: wgpu::Features, reps: usize) {
    let expected = util::expected_subgroup_size();
    let gpu = divlab::gpu::GpuContext::new_without(&Default::default(), withheld)
        .unwrap_or_else(|e| panic!("no usable GPU device: {e}"));
    assert!(!gpu.caps.subgroups);
    let lab = Lab::new(gpu);
    let config = RunConfig {
        quick: true,
        reps: Some(reps),
        fuzz_seeds: None,
    };
    let width = |r: &ExperimentResult| {
        assert_eq!(r.params["selection"], "block", "{}", r.id);
        assert_eq!(
            verdict(r, "own path's result").status,
            VerdictStatus::Held,
            "{:#?}",
            r.verdicts
        );
        metric(r, "inferred_subgroup_width") as u32
    };
    let first = run_forms(&lab, &config, &["divergence.switch"]).remove(0);
    if width(&first) != expected {
        // A timing claim on a shared CPU: measured once more, independently, before it fails.
        let again = run_forms(&lab, &config, &["divergence.switch"]).remove(0);
        assert_eq!(
            width(&again),
            expected,
            "inferred {} then {} (expected {expected})\n{:#?}\n{:#?}",
            width(&first),
            width(&again),
            first.verdicts,
            again.verdicts
        );
    }
}

#[test]
fn without_subgroups_the_width_comes_from_timing() {
    let _gpu = util::gpu_exclusive();
    infers_the_width_without(
        wgpu::Features::SUBGROUP | wgpu::Features::SUBGROUP_BARRIER,
        5,
    );
}

#[test]
fn without_subgroups_or_timestamps_the_wall_clock_still_shows_the_width() {
    let _gpu = util::gpu_exclusive();
    infers_the_width_without(
        wgpu::Features::SUBGROUP
            | wgpu::Features::SUBGROUP_BARRIER
            | wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
            | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES,
        9,
    );
}
