//! A whole run: every selected experiment on one device, into one result document.

use crate::experiments::{Lab, RunConfig, registry, run_experiment};
use crate::gpu::GpuTimer;
use crate::report::{AdapterRecord, ExperimentResult, ResultDocument, SCHEMA_VERSION};

/// What `--bench` runs.
#[derive(Clone, Debug, Default)]
pub struct BenchConfig {
    /// Repetitions and sizes.
    pub run: RunConfig,
    /// Run only experiments whose id contains this substring.
    pub only: Option<String>,
}

/// Progress events of a run, for a progress bar or the app.
#[derive(Clone, Debug)]
pub enum BenchEvent<'a> {
    /// An experiment starts: its position, the total, and its id.
    Started {
        index: usize,
        total: usize,
        id: &'a str,
    },
    /// Progress inside the current experiment, in [0, 1].
    Progress(f64),
    /// An experiment finished.
    Finished(&'a ExperimentResult),
}

/// The ids of the experiments `only` selects (all when `None`).
pub fn selected_ids(only: Option<&str>) -> Vec<&'static str> {
    registry()
        .iter()
        .map(|e| e.id())
        .filter(|id| only.is_none_or(|o| id.contains(o)))
        .collect()
}

/// Runs the selected experiments and builds the result document.
pub fn run_bench(
    lab: &Lab,
    config: &BenchConfig,
    on_event: &(dyn Fn(BenchEvent<'_>) + Sync),
) -> ResultDocument {
    let created = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let experiments: Vec<_> = registry()
        .into_iter()
        .filter(|e| config.only.as_deref().is_none_or(|o| e.id().contains(o)))
        .collect();
    let total = experiments.len();
    let mut results = Vec::with_capacity(total);
    for (index, experiment) in experiments.iter().enumerate() {
        on_event(BenchEvent::Started {
            index,
            total,
            id: experiment.id(),
        });
        let progress = |f: f64| on_event(BenchEvent::Progress(f));
        let result = run_experiment(lab, experiment.as_ref(), &config.run, &progress);
        on_event(BenchEvent::Finished(&result));
        results.push(result);
    }
    let mut adapter = adapter_record(lab);
    adapter.inferred_subgroup_width = inferred_width(&results);
    ResultDocument {
        schema_version: SCHEMA_VERSION,
        divlab_version: env!("CARGO_PKG_VERSION").to_owned(),
        created,
        adapter,
        experiments: results,
    }
}

/// The subgroup width the divergence study inferred from timing: the switch form's, else
/// another branchy form's (their F(k) has the knee; the loop form's does not).
pub fn inferred_width(results: &[ExperimentResult]) -> Option<u32> {
    [
        "divergence.switch",
        "divergence.if_chain",
        "divergence.nested_if",
    ]
    .iter()
    .filter_map(|id| results.iter().find(|e| e.id == *id))
    .find_map(|e| e.metrics.get("inferred_subgroup_width"))
    .map(|&w| w as u32)
}

/// Describes the lab's adapter, with the observed subgroup size where it could be measured.
pub fn adapter_record(lab: &Lab) -> AdapterRecord {
    let info = &lab.gpu.info;
    AdapterRecord {
        name: info.name.clone(),
        vendor: info.vendor,
        device: info.device,
        driver: info.driver.clone(),
        driver_info: info.driver_info.clone(),
        backend: info.backend.to_str().to_owned(),
        device_type: format!("{:?}", info.device_type),
        subgroup_min_size: info.subgroup_min_size,
        subgroup_max_size: info.subgroup_max_size,
        observed_subgroup_size: lab.subgroup().ok().map(|o| o.size),
        inferred_subgroup_width: None,
        subgroups: lab.gpu.caps.subgroups,
        timestamps: lab.gpu.caps.timestamps,
        timing_source: GpuTimer::new(&lab.gpu).source(),
    }
}
