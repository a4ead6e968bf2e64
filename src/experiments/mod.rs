//! Experiments: each checks one rule, and the registry lists them all, for `--bench` and the app.

/// Makes `$name` the experiment that `$info` declares and `$run` runs: the whole of
/// `impl Experiment` for an experiment with one declaration.
macro_rules! declare_experiment {
    ($name:ident, $info:expr, $run:path) => {
        impl $crate::experiments::Experiment for $name {
            fn info(&self) -> $crate::report::ExperimentInfo {
                $info
            }

            fn run(
                &self,
                ctx: $crate::experiments::RunContext<'_>,
            ) -> $crate::Result<$crate::report::ExperimentResult> {
                $run(ctx)
            }
        }
    };
}

pub mod convergence;
pub mod divergence;
pub mod fma_chain;
pub mod fuzz;
pub mod scheduling;
pub mod simt_efficiency;
pub mod subgroup_ops;
pub mod subgroup_size;

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::gpu::GpuContext;
use crate::report::{Catalog, ExperimentInfo, ExperimentResult, ExperimentStatus};
use crate::{Error, Result};

pub use subgroup_size::SubgroupObservation;

/// The fewest timed repetitions a run takes: one round resamples only to itself.
pub const MIN_REPS: usize = 2;

/// How much work a run does.
#[derive(Clone, Debug, Default)]
pub struct RunConfig {
    /// Fewer repetitions and smaller sweeps, for CI and a first look.
    pub quick: bool,
    /// Timed repetitions per configuration, at least [`MIN_REPS`]; `None` for the default (15,
    /// or 5 with `quick`).
    pub reps: Option<usize>,
    /// Seeds per style in the fuzzer's batch; `None` for the default (24, or 8 with `quick`).
    pub fuzz_seeds: Option<u64>,
}

impl RunConfig {
    /// Timed repetitions per configuration.
    pub fn reps(&self) -> usize {
        self.reps.unwrap_or(if self.quick { 5 } else { 15 })
    }

    /// Rejects settings that cannot produce a result.
    pub fn validate(&self) -> Result<()> {
        match self.reps {
            Some(n) if n < MIN_REPS => Err(Error::InvalidSettings(format!(
                "reps = {n}: at least {MIN_REPS} are needed, as one round has no 95% interval \
                 and every verdict would rest on a single time"
            ))),
            Some(n) if n > 1000 => Err(Error::InvalidSettings(format!(
                "reps = {n} is more than 1000; use fewer"
            ))),
            _ => match self.fuzz_seeds {
                Some(0) => Err(Error::InvalidSettings(
                    "fuzz seeds must be at least 1".to_owned(),
                )),
                Some(n) if n > 100_000 => Err(Error::InvalidSettings(format!(
                    "fuzz seeds = {n} is more than 100000; use `divlab fuzz` for long campaigns"
                ))),
                _ => Ok(()),
            },
        }
    }
}

/// The device plus what divlab has measured about it, shared by all experiments of a run.
pub struct Lab {
    /// The device.
    pub gpu: GpuContext,
    subgroup: OnceLock<Result<SubgroupObservation>>,
    memo: Mutex<HashMap<&'static str, Arc<dyn Any + Send + Sync>>>,
}

impl Lab {
    /// Wraps a device.
    pub fn new(gpu: GpuContext) -> Self {
        Self {
            gpu,
            subgroup: OnceLock::new(),
            memo: Mutex::new(HashMap::new()),
        }
    }

    /// A value measured once per lab and shared by later experiments (e.g. a calibration),
    /// so experiments of one run use the same settings.
    pub fn memo<T: Any + Clone + Send + Sync>(
        &self,
        key: &'static str,
        measure: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        if let Some(value) = self.memo.lock().unwrap().get(key)
            && let Some(value) = value.downcast_ref::<T>()
        {
            return Ok(value.clone());
        }
        let value = measure()?;
        self.memo
            .lock()
            .unwrap()
            .insert(key, Arc::new(value.clone()));
        Ok(value)
    }

    /// The subgroup size and mapping observed on this device, measured once. Its failure keeps
    /// its kind (unsupported, timeout, device lost) for every experiment that asks.
    pub fn subgroup(&self) -> Result<&SubgroupObservation> {
        self.subgroup
            .get_or_init(|| {
                self.gpu.require_subgroups("the subgroup probe")?;
                subgroup_size::observe(&self.gpu)
            })
            .as_ref()
            .map_err(Error::clone)
    }
}

/// Reports progress inside an experiment, as a fraction in [0, 1].
pub type Progress<'a> = &'a (dyn Fn(f64) + Sync);

/// What an experiment runs with. Cancelling goes through the device
/// ([`crate::gpu::CancelToken`]), so every experiment stops at its next submission.
#[derive(Clone, Copy)]
pub struct RunContext<'a> {
    /// The device and what was measured on it.
    pub lab: &'a Lab,
    /// Repetitions and sizes.
    pub config: &'a RunConfig,
    /// Where progress goes.
    pub progress: Progress<'a>,
}

impl<'a> RunContext<'a> {
    /// The lab, the settings and the progress callback, for a run function to take apart.
    pub fn parts(self) -> (&'a Lab, &'a RunConfig, Progress<'a>) {
        (self.lab, self.config, self.progress)
    }
}

/// One experiment: a rule, a kernel family and the checks that hold the one against the other.
pub trait Experiment: Send + Sync {
    /// What it declares: id, title, rule, kernels and key figures.
    fn info(&self) -> ExperimentInfo;

    /// Runs it. Errors become an `error` or `unsupported` result in [`run_experiment`].
    fn run(&self, ctx: RunContext<'_>) -> Result<ExperimentResult>;

    /// Stable id, e.g. `subgroup.size`.
    fn id(&self) -> &'static str {
        self.info().id
    }

    /// An empty result carrying this experiment's id, title and rule.
    fn new_result(&self) -> ExperimentResult {
        self.info().new_result()
    }

    /// The kernels that ran (for `result`, where there is one), each with a name: by default
    /// the shader files the experiment declares. An experiment that generates its kernels
    /// returns the generated source, so a reader sees what ran.
    fn sources(&self, _result: Option<&ExperimentResult>) -> Vec<KernelSource> {
        self.info()
            .shaders
            .iter()
            .map(|file| KernelSource {
                name: file.path.to_owned(),
                source: std::borrow::Cow::Borrowed(file.source),
            })
            .collect()
    }
}

/// One kernel an experiment ran, for display.
#[derive(Clone, Debug)]
pub struct KernelSource {
    /// Where it comes from: a file of `shaders/`, or how it was generated.
    pub name: String,
    /// The WGSL.
    pub source: std::borrow::Cow<'static, str>,
}

/// Every experiment divlab knows, in run order: the one list, which families (such as
/// [`scheduling::all`]) filter rather than repeat.
pub fn registry() -> Vec<Box<dyn Experiment>> {
    fn boxed<E: Experiment + 'static>(
        family: impl IntoIterator<Item = E>,
    ) -> Vec<Box<dyn Experiment>> {
        family
            .into_iter()
            .map(|e| Box::new(e) as Box<dyn Experiment>)
            .collect()
    }
    [
        boxed([subgroup_size::SubgroupSize]),
        boxed(divergence::Divergence::all()),
        boxed([simt_efficiency::SimtEfficiency]),
        boxed(convergence::Convergence::all()),
        boxed([subgroup_ops::SubgroupOps]),
        boxed([scheduling::ForwardProgress]),
        boxed([scheduling::Handshake]),
        boxed([scheduling::LockstepRace]),
        boxed([scheduling::Interleaving]),
        boxed([scheduling::RunAhead]),
        boxed([fuzz::ReconvergenceFuzz]),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Every experiment's declaration, for the readers of result documents.
pub fn catalog() -> Catalog {
    Catalog::new(registry().iter().map(|e| e.info()).collect())
}

/// Runs one experiment, turning a missing feature into `unsupported`, a cancel into
/// `cancelled` and any other failure into `error`, with its kind, so one failure never loses
/// the rest of a run.
pub fn run_experiment(
    lab: &Lab,
    experiment: &dyn Experiment,
    config: &RunConfig,
    progress: Progress<'_>,
) -> ExperimentResult {
    let start = std::time::Instant::now();
    let ctx = RunContext {
        lab,
        config,
        progress,
    };
    match experiment.run(ctx) {
        Ok(mut result) => {
            result.metric("wall_s", start.elapsed().as_secs_f64());
            result
        }
        Err(e) => {
            let mut result = experiment.new_result();
            result.status = match e {
                Error::Unsupported { .. } => ExperimentStatus::Unsupported,
                Error::Cancelled { .. } => ExperimentStatus::Cancelled,
                _ => ExperimentStatus::Error,
            };
            result.error_kind = Some(e.kind());
            result.status_detail = e.to_string();
            result
        }
    }
}

#[cfg(test)]
mod tests {
    /// Each id is its declared family's prefix, a dot and a name, so that a reader that groups
    /// by the declared family groups what the id says.
    #[test]
    fn every_id_starts_with_its_family() {
        for info in super::catalog().iter() {
            let prefix = format!("{}.", info.family.prefix());
            assert!(
                info.id.starts_with(&prefix),
                "{} is not in {prefix}*",
                info.id
            );
            assert_eq!(format!("{prefix}{}", info.name()), info.id);
        }
    }
}
