//! Compiling the study's pipelines: for the subgroup size its own kernel runs with, in
//! parallel, and warmed up once.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::kernels::{Compiled, Dispatch, DivergenceParams, Form, Mode, Selection, Sinks};
use super::plan::Plan;
use crate::Result;
use crate::experiments::{Lab, RunConfig};
use crate::gpu::{self, GpuContext, GpuTimer};
use crate::report::{ExperimentResult, VerdictStatus};

/// Plans and compiles the study for this adapter: with subgroups, for the size the study's own
/// kernel runs with (a driver may give each pipeline its own; lavapipe does, by what the kernel
/// reads), not the device probe's; without, for a width that timing will infer. Returns the
/// size the pipelines ran with, where a ballot could show it.
pub(super) fn prepare(
    lab: &Lab,
    config: &RunConfig,
    form: Form,
    selection: Selection,
    sinks: &Sinks,
    result: &mut ExperimentResult,
) -> Result<(Plan, CompiledSet, Option<u32>)> {
    let gpu = &lab.gpu;
    let max_workgroup = gpu.limits().max_compute_invocations_per_workgroup;
    let plan_for = |sg| Plan::new(sg, config.quick, gpu.info.device_type, max_workgroup);
    if selection == Selection::Block {
        let plan = Plan::without_subgroups(config.quick, gpu.info.device_type, max_workgroup);
        let compiled = compile_all(gpu, form, &plan, selection)?;
        return Ok((plan, compiled, None));
    }
    let device_size = lab.subgroup()?.size;
    let mut plan = plan_for(device_size);
    let mut compiled = compile_all(gpu, form, &plan, selection)?;
    let mut sizes = pipeline_subgroup_sizes(gpu, sinks, &compiled)?;
    let main_size = sizes[&(form, plan.workgroup_size)];
    if main_size != plan.subgroup_size && main_size > 0 {
        plan = plan_for(main_size);
        compiled = compile_all(gpu, form, &plan, selection)?;
        sizes = pipeline_subgroup_sizes(gpu, sinks, &compiled)?;
    }
    record_pipeline_sizes(result, &sizes, device_size, plan.subgroup_size);
    let size = plan.subgroup_size;
    Ok((plan, compiled, Some(size)))
}

/// The subgroup size each compiled pipeline runs with.
fn pipeline_subgroup_sizes(
    gpu: &GpuContext,
    sinks: &Sinks,
    compiled: &CompiledSet,
) -> Result<BTreeMap<(Form, u32), u32>> {
    compiled
        .pipelines
        .iter()
        .map(|(&key, pipeline)| {
            let invocations = pipeline.workgroup_size() * 4;
            Ok((
                key,
                pipeline.observed_subgroup_size(gpu, sinks, invocations)?,
            ))
        })
        .collect()
}

fn record_pipeline_sizes(
    result: &mut ExperimentResult,
    sizes: &BTreeMap<(Form, u32), u32>,
    device: u32,
    used: u32,
) {
    let named: serde_json::Map<String, serde_json::Value> = sizes
        .iter()
        .map(|(&(form, wg), &size)| (format!("{}_wg{wg}", form.name()), size.into()))
        .collect();
    result.param("pipeline_subgroup_sizes", named);
    result.metric("pipeline_subgroup_size", f64::from(used));
    let distinct: BTreeSet<u32> = sizes.values().copied().collect();
    let detail = if distinct.len() == 1 && used == device {
        format!(
            "all {} pipelines ran with {used} lanes, as the device probe saw",
            sizes.len()
        )
    } else {
        format!(
            "the pipelines ran with {distinct:?} lanes (device probe: {device}); the study \
             plans and models with {used}, the size of its main kernel; per pipeline in \
             params.pipeline_subgroup_sizes"
        )
    };
    result.verdict(
        "pipeline_subgroup_size",
        "the study's pipelines run with the device probe's subgroup size",
        VerdictStatus::NotGuaranteed,
        detail,
    );
}

/// Every pipeline a form needs, keyed by (form, workgroup size).
pub(super) struct CompiledSet {
    pipelines: BTreeMap<(Form, u32), Compiled>,
}

impl CompiledSet {
    pub(super) fn get(&self, form: Form, workgroup_size: u32) -> &Compiled {
        &self.pipelines[&(form, workgroup_size)]
    }
}

/// Compiles every pipeline the plan needs, in parallel: drivers compile on the calling thread,
/// and a 128-path kernel takes a while.
fn compile_all(
    gpu: &GpuContext,
    form: Form,
    plan: &Plan,
    selection: Selection,
) -> Result<CompiledSet> {
    let mut keys = BTreeSet::from([
        (form, plan.workgroup_size),
        (Form::Predicated, plan.workgroup_size),
    ]);
    keys.extend(plan.occupancy.iter().map(|&(wg, _)| (form, wg)));
    let keys: Vec<_> = keys.into_iter().collect();
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(keys.len());
    let compiled: Vec<Vec<(usize, Result<Compiled>)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(form, wg)) = keys.get(i) else {
                            break done;
                        };
                        let paths = form.paths_compiled(plan.max_k());
                        done.push((i, Compiled::new(gpu, form, (paths, selection), wg)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("compiler threads do not panic"))
            .collect()
    });
    let mut pipelines = BTreeMap::new();
    for (i, result) in compiled.into_iter().flatten() {
        pipelines.insert(keys[i], result?);
    }
    Ok(CompiledSet { pipelines })
}

/// Runs every pipeline once. Some drivers (lavapipe) finish compiling in the background or at
/// first use, and that work would otherwise land inside the calibration's timings.
pub(super) fn warm_up(
    gpu: &GpuContext,
    sinks: &Sinks,
    compiled: &CompiledSet,
    plan: &Plan,
) -> Result<()> {
    let params = DivergenceParams::new(1, Mode::LaneDivergent, |_| 1);
    let dispatches: Vec<gpu::Dispatch> = compiled
        .pipelines
        .values()
        .map(|pipeline| {
            Dispatch::new(gpu, sinks, pipeline, &params, plan.saturating_invocations)
                .dispatch()
                .clone()
        })
        .collect();
    GpuTimer::new(gpu).warm_up(gpu, "divlab.divergence", &dispatches)
}
