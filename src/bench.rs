//! A whole run: every selected experiment on one device, into one result document.

use crate::experiments::{Lab, RunConfig, registry, run_experiment};
use crate::gpu::inventory::describe_adapter;
use crate::report::{
    AdapterRecord, ExperimentResult, ExperimentStatus, ResultDocument, SCHEMA_VERSION,
};

/// What a run runs: `--bench` and the app's Run buttons.
#[derive(Clone, Debug, Default)]
pub struct BenchConfig {
    /// Repetitions and sizes.
    pub run: RunConfig,
    /// Run only experiments whose id contains this substring.
    pub only: Option<String>,
    /// Run only these experiments (still in registry order).
    pub ids: Option<Vec<String>>,
}

impl BenchConfig {
    fn selects(&self, id: &str) -> bool {
        self.only.as_deref().is_none_or(|o| id.contains(o))
            && self
                .ids
                .as_ref()
                .is_none_or(|ids| ids.iter().any(|i| i == id))
    }
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
    /// An experiment finished (or was cancelled: see its status).
    Finished(&'a ExperimentResult),
}

/// The ids of the experiments `only` selects (all when `None`).
pub fn selected_ids(only: Option<&str>) -> Vec<&'static str> {
    let config = BenchConfig {
        only: only.map(str::to_owned),
        ..BenchConfig::default()
    };
    registry()
        .iter()
        .map(|e| e.id())
        .filter(|id| config.selects(id))
        .collect()
}

/// The one run loop, for the CLI and the app: runs the selected experiments in registry order
/// and builds the result document. Cancelling the device's token
/// ([`crate::gpu::GpuContext::cancel_token`]) stops the run at its next submission: the
/// interrupted experiment is recorded as `cancelled`, and later ones are not run.
pub fn run_bench(
    lab: &Lab,
    config: &BenchConfig,
    on_event: &(dyn Fn(BenchEvent<'_>) + Sync),
) -> ResultDocument {
    let created = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let experiments: Vec<_> = registry()
        .into_iter()
        .filter(|e| config.selects(e.id()))
        .collect();
    let total = experiments.len();
    let cancel = lab.gpu.cancel_token();
    let mut results = Vec::with_capacity(total);
    for (index, experiment) in experiments.iter().enumerate() {
        if cancel.is_cancelled() {
            break;
        }
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
        schema: crate::report::result_schema_id(),
        schema_version: SCHEMA_VERSION,
        divlab_version: crate::report::build::version_record(),
        created,
        adapter,
        experiments: results,
    }
}

/// `--bench`'s exit code for a finished run: 3 when the GPU timed out or was lost (later results
/// are void), 1 when an experiment failed or a guarantee was violated, else 0.
pub fn exit_code(doc: &ResultDocument) -> u8 {
    let experiments = &doc.experiments;
    if experiments
        .iter()
        .any(|e| e.error_kind.is_some_and(|k| k.is_gpu_failure()))
    {
        3
    } else if experiments
        .iter()
        .any(|e| e.status == ExperimentStatus::Error || e.has_violation())
    {
        1
    } else {
        0
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
    let caps = &lab.gpu.caps;
    AdapterRecord {
        observed_subgroup_size: lab.subgroup().ok().map(|o| o.size),
        ..describe_adapter(&lab.gpu.info, caps.subgroups, caps.timestamps)
    }
}
