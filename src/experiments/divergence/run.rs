//! Running the divergence study on a device: compile, calibrate, time round-robin, check results.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::experiments::divergence::Divergence;
use crate::experiments::divergence::analysis::{
    self, KPoint, Marginal, Measurements, OccupancyPoint, Timing,
};
use crate::experiments::divergence::kernels::{
    Compiled, Dispatch, DivergenceParams, FLOPS_PER_TRIP, Form, Mode, Selection, Sinks,
    UNIFORM_BLOCK, Variant,
};
use crate::experiments::divergence::plan::Plan;
use crate::experiments::divergence::width;
use crate::experiments::{Experiment, Lab, Progress, RunConfig};
use crate::gpu::{self, GpuContext, GpuTimer, LLVMPIPE_LOOP_ITERATIONS};
use crate::model::divergence as model;
use crate::report::{ExperimentResult, VerdictStatus};
use crate::stats;
use crate::{Error, Result};

/// Trip counts stay below this, so no loop can run away whatever the calibration measures. A
/// sparse occupancy level on a CPU device (one workgroup on one core) needs ~170k.
const MAX_TRIPS: u32 = 1 << 20;

/// Trips x invocations of one path stay below this: 10 ms of FMAs on an H200, so even a
/// calibration fooled by a broken timer cannot launch a dispatch that runs for minutes.
const MAX_LANE_TRIPS: u64 = 1 << 31;

/// The most trips a path may have: none of the study's dispatches of `invocations` may run for
/// long, and on llvmpipe a divergent subgroup, which runs up to `paths` paths' loops one after
/// another, must stay within the driver's loop iteration limit.
fn max_trips(gpu: &GpuContext, invocations: u32, paths: u32) -> u32 {
    let cap = MAX_LANE_TRIPS / u64::from(invocations.max(1));
    let cap = u32::try_from(cap).unwrap_or(MAX_TRIPS).clamp(1, MAX_TRIPS);
    // Past llvmpipe's loop limit a divergent subgroup's time stopped growing with its trips.
    if gpu.is_llvmpipe() {
        // A little headroom for the iterations that test a loop's exit.
        cap.min((LLVMPIPE_LOOP_ITERATIONS - 1024) / paths.max(1))
    } else {
        cap
    }
}

/// The lab memo keys of the shared calibration; quick and full plans have different targets.
const CALIBRATION_KEY: &str = "divergence.calibration";
const CALIBRATION_KEY_QUICK: &str = "divergence.calibration.quick";

/// Invocations whose results are checked against the CPU model.
const CHECKED_INVOCATIONS: u32 = 512;

/// The lab memo key of the width a branchy form inferred, for the loop form on adapters
/// without subgroups (its F(k) has no knee to read).
const INFERRED_WIDTH_KEY: &str = "divergence.inferred_width";

pub fn run(
    experiment: &Divergence,
    lab: &Lab,
    config: &RunConfig,
    progress: Progress<'_>,
) -> Result<ExperimentResult> {
    let gpu = &lab.gpu;
    let form = experiment.form;
    let mut result = experiment.new_result();
    let sinks = &Sinks::default();
    let selection = if gpu.caps.subgroups {
        Selection::Subgroup
    } else {
        Selection::Block
    };
    result.param("selection", format!("{selection:?}").to_lowercase());
    let known_width = (selection == Selection::Block && form == Form::Loop)
        .then(|| {
            lab.memo(INFERRED_WIDTH_KEY, || {
                Err(Error::Unsupported {
                    what: experiment.id().to_owned(),
                    feature: "subgroup operations, or a subgroup width inferred from timing by \
                              a branchy form first (run the forms together: `--only divergence`)"
                        .to_owned(),
                })
            })
        })
        .transpose()?;
    let (mut plan, compiled, observed) = prepare(lab, config, form, selection, sinks, &mut result)?;
    progress(0.05);
    warm_up(gpu, sinks, &compiled, &plan)?;
    // Every form's trip has the same body, so one calibration (on the branch-free kernel, taken
    // when the device is fresh) serves all forms of a run; taken later, right after another
    // form's run, it came out 2-4x low on the H200.
    let predicated = compiled.get(Form::Predicated, plan.workgroup_size);
    let key = if config.quick {
        CALIBRATION_KEY_QUICK
    } else {
        CALIBRATION_KEY
    };
    let calibration = lab.memo(key, || {
        spin_up(gpu, sinks, predicated, plan.saturating_invocations)?;
        calibrate(
            gpu,
            sinks,
            predicated,
            (plan.saturating_invocations, plan.serialized_paths()),
            plan.target_ns,
            4,
        )
    })?;
    let loop_form = form == Form::Loop;
    // The loop form's control gives every subgroup the mean trip count (k + 1) / 2 * trips,
    // which is whole for even trips.
    let trips = if loop_form {
        (calibration.trips & !1).max(2)
    } else {
        calibration.trips
    };
    result.param("calibration", calibration.trace_json());
    progress(0.1);
    let reps = config.reps();

    // Phase 1: the k sweep and the dispatch floor. Its F(k) shows the subgroup width.
    let mut runs = Vec::new();
    let mut groups = Vec::new();
    let mixed_at = (selection == Selection::Subgroup).then(|| plan.occupancy_k());
    plan_k_groups(
        (gpu, sinks, &compiled),
        &plan,
        form,
        (trips, mixed_at),
        &mut runs,
        &mut groups,
    );
    let floor_group = groups.len();
    let main = compiled.get(form, plan.workgroup_size);
    push_group(&mut groups, &mut runs, || {
        vec![floor_dispatch(gpu, sinks, main)]
    });
    let mut labels: Vec<String> = plan.ks.iter().map(|k| format!("k = {k}")).collect();
    labels.push("dispatch floor".to_owned());
    let sweep = Schedule {
        runs: &runs,
        groups: &groups,
        labels: &labels,
        marginal: None,
    }
    .time(gpu, reps, &|f| progress(0.1 + 0.5 * f))?;
    let floor = sweep.times[groups[floor_group].start].clone();
    let f_of_k: Vec<(u32, f64)> = plan
        .ks
        .iter()
        .zip(&groups)
        .map(|(&k, g)| {
            let (div, uniform) = (&sweep.times[g.start], &sweep.times[g.start + 1]);
            (k, div.ratio_to(uniform, floor.time()).value)
        })
        .collect();
    let inferred = (!loop_form).then(|| width::infer_width(&f_of_k)).flatten();
    let sg = match (observed, &inferred, known_width) {
        (Some(size), _, _) => size,
        (None, _, Some(width)) => width,
        (None, Some(inference), None) => inference.width,
        (None, None, None) => {
            return Err(Error::Unsupported {
                what: experiment.id().to_owned(),
                feature: format!(
                    "subgroup operations, or timings whose F(k) shows a knee (F(k) = {})",
                    f_of_k
                        .iter()
                        .map(|(k, f)| format!("{k}: {f:.2}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
    };
    if let Some(inference) = &inferred {
        let _ = lab.memo(INFERRED_WIDTH_KEY, || Ok(inference.width));
        record_inferred_width(&mut result, inference, observed);
    }
    plan.set_subgroup_size(sg);

    // Phase 2: occupancy levels at k = SG, each calibrated on its own, F(SG) at fewer trips, and
    // unbalanced paths.
    let n = plan.saturating_invocations;
    let level_trips = calibrate_levels(gpu, sinks, &compiled, &plan, form, trips)?;
    let mut runs2 = Vec::new();
    let mut groups2 = Vec::new();
    for (&(wg, invocations), calibrated) in plan.occupancy.iter().zip(&level_trips) {
        let pipeline = compiled.get(form, wg);
        let (div, control) = divergent_and_control(form, plan.occupancy_k(), calibrated.trips);
        push_group(&mut groups2, &mut runs2, || {
            vec![
                Dispatch::new(gpu, sinks, pipeline, &div, invocations),
                Dispatch::new(gpu, sinks, pipeline, &control, invocations),
                floor_dispatch(gpu, sinks, pipeline),
            ]
        });
    }
    // The study's own dispatch at k = SG again at fewer trips, in the same rounds: the two trip
    // counts give F(SG) on the path work alone, whatever the dispatch costs besides (its
    // floor, each invocation's selector and store, launching its workgroups).
    let fewer = fewer_trips(form, trips);
    let marginal_group = fewer.map(|fewer| {
        let k = plan.occupancy_k();
        let (div, control) = divergent_and_control(form, k, trips);
        let (div_fewer, control_fewer) = divergent_and_control(form, k, fewer);
        push_group(&mut groups2, &mut runs2, || {
            [div, control, div_fewer, control_fewer]
                .iter()
                .map(|params| Dispatch::new(gpu, sinks, main, params, n))
                .collect()
        });
        (groups2.len() - 1, fewer)
    });
    let unbalanced = (!loop_form).then(|| {
        let k = plan.unbalanced_k;
        let light = (trips / 4).max(1);
        let heavy = k * trips - (k - 1) * light;
        let balanced = DivergenceParams::new(k, Mode::LaneDivergent, |_| trips);
        let skewed =
            DivergenceParams::new(
                k,
                Mode::LaneDivergent,
                |j| if j == 0 { heavy } else { light },
            );
        push_group(&mut groups2, &mut runs2, || {
            [balanced, skewed]
                .iter()
                .map(|params| Dispatch::new(gpu, sinks, main, params, plan.saturating_invocations))
                .collect()
        });
        (k, heavy, light)
    });
    let mut labels2: Vec<String> = plan
        .occupancy
        .iter()
        .map(|(wg, n)| format!("occupancy wg {wg} x {n}"))
        .collect();
    if marginal_group.is_some() {
        labels2.push(format!("k = {} at fewer trips", plan.occupancy_k()));
    }
    if unbalanced.is_some() {
        labels2.push("unbalanced paths".to_owned());
    }
    let levels = Schedule {
        runs: &runs2,
        groups: &groups2,
        labels: &labels2,
        marginal: marginal_group.map(|(g, _)| g),
    }
    .time(gpu, reps, &|f| progress(0.6 + 0.35 * f))?;

    // Each point's model is computed from the parameters its dispatches actually ran with.
    let issued = |form, run: &Dispatch, mode| {
        model::issued_trips(form, &run.params, (mode, selection), sg, n)
    };
    let times = &sweep.times;
    let points = plan
        .ks
        .iter()
        .zip(&groups)
        .map(|(&k, group)| {
            let (div, uniform) = (&runs[group.start], &runs[group.start + 1]);
            KPoint {
                k,
                div: times[group.start].clone(),
                uniform: times[group.start + 1].clone(),
                pred: times[group.start + 2].clone(),
                uniform_ref: times[group.start + 3].clone(),
                model_div: issued(form, div, Mode::LaneDivergent),
                model_uniform: issued(form, uniform, Mode::SubgroupUniform),
                model_sum_of_paths: issued(Form::Switch, div, Mode::LaneDivergent),
            }
        })
        .collect();
    let k_sg = plan
        .ks
        .iter()
        .position(|&k| k == plan.occupancy_k())
        .unwrap_or(0);
    let mixed_control = (loop_form && mixed_at.is_some()).then(|| {
        let group = &groups[k_sg];
        (times[group.start].clone(), times[group.start + 4].clone())
    });
    let occupancy = plan
        .occupancy
        .iter()
        .zip(&groups2)
        .zip(&level_trips)
        .map(
            |((&(workgroup_size, _), group), calibrated)| OccupancyPoint {
                workgroup_size,
                invocations: runs2[group.start].invocations,
                trips: calibrated.trips,
                div: levels.times[group.start].clone(),
                uniform: levels.times[group.start + 1].clone(),
                floor: levels.times[group.start + 2].clone(),
            },
        )
        .collect();
    let unbalanced_times = unbalanced.map(|(k, _, _)| {
        let group = groups2
            .last()
            .expect("the unbalanced pair is the last group");
        (
            k,
            levels.times[group.start].clone(),
            levels.times[group.start + 1].clone(),
        )
    });
    let marginal = marginal_group.map(|(g, fewer)| {
        let at = |i: usize| levels.times[groups2[g].start + i].clone();
        Marginal {
            trips,
            fewer,
            div: at(0),
            uniform: at(1),
            div_fewer: at(2),
            uniform_fewer: at(3),
        }
    });
    let measurements = Measurements {
        subgroup_size: sg,
        points,
        floor,
        marginal,
        occupancy,
        unbalanced: unbalanced_times,
        mixed_control,
        baseline_flops: f64::from(runs[0].invocations) * f64::from(trips) * FLOPS_PER_TRIP,
        loop_form,
        occupancy_k: plan.occupancy_k(),
    };

    record_params(&mut result, &plan, trips, reps, unbalanced, &runs[0]);
    result.param(
        "occupancy_trips",
        level_trips.iter().map(|c| c.trips).collect::<Vec<_>>(),
    );
    result.param("paths_compiled", form.paths_compiled(plan.max_k()));
    Timed::record_both(&sweep, &levels, &mut result);
    analysis::analyze(&measurements, &mut result);
    // Without subgroups, the kernel's selector names each invocation by its global index.
    let linear = observed.is_none() || lab.subgroup()?.linear_mapping;
    check_results(
        gpu,
        (form, selection),
        &runs[groups[k_sg].start],
        sg,
        linear,
        &mut result,
    )?;
    progress(1.0);
    Ok(result)
}

/// Plans and compiles the study for this adapter: with subgroups, for the size the study's own
/// kernel runs with (a driver may give each pipeline its own; lavapipe does, by what the kernel
/// reads), not the device probe's; without, for a width that timing will infer. Returns the
/// size the pipelines ran with, where a ballot could show it.
fn prepare(
    lab: &Lab,
    config: &RunConfig,
    form: Form,
    selection: Selection,
    sinks: &Sinks,
    result: &mut ExperimentResult,
) -> Result<(Plan, CompiledSet, Option<u32>)> {
    let gpu = &lab.gpu;
    let max_workgroup = gpu.device.limits().max_compute_invocations_per_workgroup;
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

/// The width timing showed, beside the ballot-observed size where there is one.
fn record_inferred_width(
    result: &mut ExperimentResult,
    inference: &width::WidthInference,
    observed: Option<u32>,
) {
    result.metric("inferred_subgroup_width", f64::from(inference.width));
    result.metric("inferred_width_r2", inference.r2);
    result.metric("inferred_width_plateau", inference.plateau);
    result.param("inferred_width_candidates", inference.candidates.clone());
    let bound = if inference.at_least { "at least " } else { "" };
    let evidence = format!(
        "F(k) = a + b*min(k, W) fits best at W = {bound}{} (R^2 = {:.4}; F at the largest k / \
         F(W) = {:.2}); widths within 2x of the best fit's residual: {:?}",
        inference.width, inference.r2, inference.plateau, inference.candidates
    );
    match observed {
        Some(size) => result.verdict(
            "inferred_width",
            "the subgroup width inferred from timing equals the ballot-observed size",
            VerdictStatus::consistent_if(inference.width == size && !inference.at_least),
            format!("{evidence}; ballots show {size}"),
        ),
        None => result.verdict(
            "inferred_width",
            "the subgroup width inferred from timing (no subgroup operations to observe it)",
            VerdictStatus::NotGuaranteed,
            format!(
                "{evidence}; assumes subgroups of consecutive invocations, the control uniform \
                 over aligned blocks of {UNIFORM_BLOCK}"
            ),
        ),
    }
}

/// One group per k, in k order: the divergent dispatch, its subgroup-uniform control, the
/// predicated variant and the k = 1 control (the clock this k's control is read against); for
/// the loop form at k = SG also the control with the divergent dispatch's mix of trip counts.
fn plan_k_groups(
    (gpu, sinks, compiled): (&GpuContext, &Sinks, &CompiledSet),
    plan: &Plan,
    form: Form,
    (trips, mixed_at): (u32, Option<u32>),
    runs: &mut Vec<Dispatch>,
    groups: &mut Vec<Range<usize>>,
) {
    let main = compiled.get(form, plan.workgroup_size);
    let predicated = compiled.get(Form::Predicated, plan.workgroup_size);
    let n = plan.saturating_invocations;
    for &k in &plan.ks {
        let (div, control) = divergent_and_control(form, k, trips);
        let (_, control_ref) = divergent_and_control(form, 1, trips);
        let pred = DivergenceParams::new(k, Mode::LaneDivergent, |_| trips);
        push_group(groups, runs, || {
            let mut members = vec![
                Dispatch::new(gpu, sinks, main, &div, n),
                Dispatch::new(gpu, sinks, main, &control, n),
                Dispatch::new(gpu, sinks, predicated, &pred, n),
                Dispatch::new(gpu, sinks, main, &control_ref, n),
            ];
            if form == Form::Loop && mixed_at == Some(k) {
                let mixed = DivergenceParams::new(k, Mode::SubgroupUniform, |j| (j + 1) * trips);
                members.push(Dispatch::new(gpu, sinks, main, &mixed, n));
            }
            members
        });
    }
}

/// The divergent parameters of `form` at k, and its subgroup-uniform control.
///
/// The branchy forms' control is the same mix of paths with the selector uniform per subgroup.
/// The loop form's is every subgroup running the mean trip count of the divergent subgroups'
/// lanes: with the mix of trip counts instead, a dispatch's time follows its longest subgroups
/// while the device is not full (the tail), not their mean, and F(k) measured the tail.
fn divergent_and_control(form: Form, k: u32, trips: u32) -> (DivergenceParams, DivergenceParams) {
    if form == Form::Loop {
        let div = DivergenceParams::new(k, Mode::LaneDivergent, |j| (j + 1) * trips);
        let mean = (k + 1) * trips / 2;
        (
            div,
            DivergenceParams::new(1, Mode::SubgroupUniform, |_| mean),
        )
    } else {
        let params = |mode| DivergenceParams::new(k, mode, |_| trips);
        (params(Mode::LaneDivergent), params(Mode::SubgroupUniform))
    }
}

/// The trip count of F(SG)'s second measurement: a quarter of `trips` (even for the loop form,
/// whose control runs a mean trip count), or `None` when that is not fewer. A quarter, not a
/// half: the difference of the two times keeps three quarters of the work, so the noise of two
/// times weighs less on it (on lavapipe a half gave intervals of +-7%).
fn fewer_trips(form: Form, trips: u32) -> Option<u32> {
    let quarter = if form == Form::Loop {
        (trips / 4) & !1
    } else {
        trips / 4
    };
    (quarter >= 1 && quarter < trips).then_some(quarter)
}

/// An empty dispatch of one workgroup of `pipeline`: same bindings, every invocation returns at
/// entry. Its time is the fixed per-dispatch cost that every ratio of the study takes out of
/// both times. One workgroup, because only the launch latency is fixed: an empty dispatch of the
/// study's full size (1M invocations) took 14.3 us on the H200, more than the 7.5 us intercept
/// of T(k) = a + s*k, so launching its workgroups overlaps the work of a real dispatch.
fn floor_dispatch(gpu: &GpuContext, sinks: &Sinks, pipeline: &Compiled) -> Dispatch {
    let mut params = DivergenceParams::new(1, Mode::LaneDivergent, |_| 0);
    params.variant = Variant::Empty as u32;
    Dispatch::new(gpu, sinks, pipeline, &params, pipeline.workgroup_size())
}

fn push_group(
    groups: &mut Vec<Range<usize>>,
    runs: &mut Vec<Dispatch>,
    members: impl FnOnce() -> Vec<Dispatch>,
) {
    let start = runs.len();
    runs.extend(members());
    groups.push(start..runs.len());
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
struct CompiledSet {
    pipelines: BTreeMap<(Form, u32), Compiled>,
}

impl CompiledSet {
    fn get(&self, form: Form, workgroup_size: u32) -> &Compiled {
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
fn warm_up(gpu: &GpuContext, sinks: &Sinks, compiled: &CompiledSet, plan: &Plan) -> Result<()> {
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

/// Finds the trip count that makes a k = 1 dispatch of `compiled` over `invocations` take about
/// `target_ns`, starting from `start` trips. Time is affine in trips (launch overhead plus
/// work), so rescaling converges within a few rounds.
fn calibrate(
    gpu: &GpuContext,
    sinks: &Sinks,
    compiled: &Compiled,
    (invocations, paths): (u32, u32),
    target_ns: f64,
    start: u32,
) -> Result<Calibration> {
    let timer = GpuTimer::new(gpu);
    let cap = max_trips(gpu, invocations, paths);
    let mut trips = start.clamp(1, cap);
    let mut trace = Vec::new();
    for _ in 0..8 {
        let params = DivergenceParams::new(1, Mode::LaneDivergent, |_| trips);
        let dispatch = Dispatch::new(gpu, sinks, compiled, &params, invocations);
        dispatch.time(gpu, &timer)?; // Warm-up.
        let samples = (0..5)
            .map(|_| dispatch.time(gpu, &timer))
            .collect::<Result<Vec<_>>>()?;
        // The fastest sample: on a shared CPU interruptions only add time, and a slowed
        // calibration would set too few trips.
        let t = stats::summarize(&samples).map_or(0.0, |s| s.min).max(1.0);
        trace.push((trips, t));
        if (t / target_ns - 1.0).abs() < 0.1 || trips == cap {
            break;
        }
        let next = f64::from(trips) * target_ns / t;
        trips = next.round().clamp(1.0, f64::from(cap)) as u32;
    }
    Ok(Calibration { trips, trace })
}

/// Calibrates each occupancy level on its own, so that its k = 1 dispatch takes the study's
/// target whatever its size: with the main sweep's trip count, a sparse level's dispatch held
/// a few microseconds of work beside a similar fixed cost, and its ratio measured the floor.
fn calibrate_levels(
    gpu: &GpuContext,
    sinks: &Sinks,
    compiled: &CompiledSet,
    plan: &Plan,
    form: Form,
    trips: u32,
) -> Result<Vec<Calibration>> {
    spin_up(
        gpu,
        sinks,
        compiled.get(form, plan.workgroup_size),
        plan.saturating_invocations,
    )?;
    plan.occupancy
        .iter()
        .map(|&(wg, invocations)| {
            // Work scales with invocations until the device is full: start from that guess.
            let guess = u64::from(trips) * u64::from(plan.saturating_invocations)
                / u64::from(invocations.max(1));
            let start = u32::try_from(guess).unwrap_or(u32::MAX);
            // Calibration accepts +-10%; aiming 15% high keeps every level at the target or above.
            let mut level = calibrate(
                gpu,
                sinks,
                compiled.get(form, wg),
                (invocations, plan.serialized_paths()),
                plan.target_ns * 1.15,
                start,
            )?;
            // The loop form's control at k = SG averages (k + 1) / 2 trips of each path: keep it whole.
            if form == Form::Loop {
                level.trips &= !1;
                level.trips = level.trips.max(2);
            }
            Ok(level)
        })
        .collect()
}

/// A calibrated trip count and how it was found: (trips, fastest ns) per round.
#[derive(Clone)]
struct Calibration {
    trips: u32,
    trace: Vec<(u32, f64)>,
}

impl Calibration {
    fn trace_json(&self) -> Vec<Vec<f64>> {
        self.trace
            .iter()
            .map(|&(n, t)| vec![f64::from(n), t])
            .collect()
    }
}

/// Keeps the device busy for a while before calibrating. A GPU that idled while kernels
/// compiled runs at idle clocks for its first dispatches (seen on the H200: 5x slower), and a
/// calibration taken then sets trip counts far too low.
fn spin_up(gpu: &GpuContext, sinks: &Sinks, compiled: &Compiled, invocations: u32) -> Result<()> {
    const SPIN_UP: std::time::Duration = std::time::Duration::from_millis(300);
    if gpu.info.device_type == wgpu::DeviceType::Cpu {
        return Ok(());
    }
    let timer = GpuTimer::new(gpu);
    let params = DivergenceParams::new(1, Mode::LaneDivergent, |_| 256);
    let dispatch = Dispatch::new(gpu, sinks, compiled, &params, invocations);
    let start = std::time::Instant::now();
    while start.elapsed() < SPIN_UP {
        dispatch.time(gpu, &timer)?;
    }
    Ok(())
}

/// A group's 95% interval of its first two dispatches' ratio wider than this (relative to the
/// ratio) marks it noisy, and it gets extra rounds.
const NOISY_WIDTH: f64 = 0.10;

/// Extra rounds for noisy groups stop after this many times the base rounds' count...
const MAX_EXTRA_ROUNDS_FACTOR: usize = 4;

/// ... or once they have taken as long as the base rounds did.
const EXTRA_TIME_FACTOR: f64 = 1.0;

/// What to time, and what belongs together.
struct Schedule<'a> {
    runs: &'a [Dispatch],
    /// Ranges of `runs` that are compared with each other; they run back to back.
    groups: &'a [Range<usize>],
    /// A name per group.
    labels: &'a [String],
    /// The group of [`Marginal`]'s four dispatches, whose noise is that of its difference ratio.
    marginal: Option<usize>,
}

/// The timings of a schedule, with how much adaptive repetition it took.
struct Timed {
    times: Vec<Timing>,
    base_rounds: usize,
    /// Extra rounds each group got.
    extra_rounds: Vec<usize>,
    /// Groups still noisy when the budget ran out: (label, relative interval width).
    noisy: Vec<(String, f64)>,
}

impl Timed {
    /// Records the adaptive repetition of the study's two phases.
    fn record_both(sweep: &Timed, levels: &Timed, result: &mut ExperimentResult) {
        result.param("base_rounds", sweep.base_rounds);
        let extra: usize = [sweep, levels].iter().flat_map(|t| &t.extra_rounds).sum();
        result.metric("extra_rounds", extra as f64);
        let noisy: Vec<String> = [sweep, levels]
            .iter()
            .flat_map(|t| &t.noisy)
            .map(|(label, width)| {
                format!(
                    "{label}: 95% interval {:.0}% wide after extra rounds",
                    width * 100.0
                )
            })
            .collect();
        result.metric("noisy_configurations", noisy.len() as f64);
        result.param("noisy_configurations", noisy);
    }
}

impl Schedule<'_> {
    /// Times every dispatch `reps` times after one warm-up each, then gives groups whose ratio
    /// is still uncertain (see [`NOISY_WIDTH`]) extra rounds, within a budget. Each round visits
    /// the groups, and the dispatches in a group, in a fresh random order (fixed seed, so runs
    /// repeat): compared dispatches stay close in time, and no dispatch always follows the same
    /// neighbour (on lavapipe a dispatch right after a long one ran measurably slower).
    fn time(&self, gpu: &GpuContext, reps: usize, progress: Progress<'_>) -> Result<Timed> {
        let timer = GpuTimer::new(gpu);
        let dispatches: Vec<gpu::Dispatch> =
            self.runs.iter().map(|run| run.dispatch().clone()).collect();
        timer.warm_up(gpu, "divlab.divergence", &dispatches)?;
        let mut rng = fastrand::Rng::with_seed(0xd1f1ab);
        let mut samples = vec![Vec::with_capacity(reps); self.runs.len()];
        let all: Vec<usize> = (0..self.groups.len()).collect();
        let start = std::time::Instant::now();
        for rep in 0..reps {
            self.round(gpu, &timer, &mut rng, &all, &mut samples)?;
            progress(0.8 * (rep + 1) as f64 / reps as f64);
        }
        let budget = start.elapsed().mul_f64(EXTRA_TIME_FACTOR);
        let extra_start = std::time::Instant::now();
        let mut extra_rounds = vec![0; self.groups.len()];
        let mut noisy = self.noisy(&samples);
        for _ in 0..reps * MAX_EXTRA_ROUNDS_FACTOR {
            if noisy.is_empty() || extra_start.elapsed() >= budget {
                break;
            }
            let indices: Vec<usize> = noisy.iter().map(|&(g, _)| g).collect();
            self.round(gpu, &timer, &mut rng, &indices, &mut samples)?;
            for &g in &indices {
                extra_rounds[g] += 1;
            }
            progress(
                0.8 + 0.2 * (extra_start.elapsed().as_secs_f64() / budget.as_secs_f64()).min(1.0),
            );
            noisy = self.noisy(&samples);
        }
        Ok(Timed {
            times: samples
                .into_iter()
                .map(|s| Timing::new(s).expect("reps >= 1 and times are finite"))
                .collect(),
            base_rounds: reps,
            extra_rounds,
            noisy: noisy
                .into_iter()
                .map(|(g, width)| (self.labels[g].clone(), width))
                .collect(),
        })
    }

    /// One round over `groups`, in a fresh random order.
    fn round(
        &self,
        gpu: &GpuContext,
        timer: &GpuTimer,
        rng: &mut fastrand::Rng,
        groups: &[usize],
        samples: &mut [Vec<f64>],
    ) -> Result<()> {
        let mut order = groups.to_vec();
        rng.shuffle(&mut order);
        for g in order {
            let mut members: Vec<usize> = self.groups[g].clone().collect();
            rng.shuffle(&mut members);
            for i in members {
                samples[i].push(self.runs[i].time(gpu, timer)?);
            }
        }
        Ok(())
    }

    /// Groups whose compared dispatches' per-round ratio has a 95% interval wider than
    /// [`NOISY_WIDTH`], with the widest relative width.
    fn noisy(&self, samples: &[Vec<f64>]) -> Vec<(usize, f64)> {
        let width = |a: &[f64], b: &[f64]| {
            let ratios: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
            let median = stats::summarize(&ratios)?.median;
            Some(stats::median_interval(&ratios)?.relative_width(median))
        };
        self.groups
            .iter()
            .enumerate()
            .filter(|(_, group)| group.len() >= 2)
            .filter_map(|(g, group)| {
                if self.marginal == Some(g) {
                    // The same per-round ratios as the verdict reads.
                    let ratios = analysis::difference_ratios(
                        [0, 1, 2, 3].map(|i| &samples[group.start + i][..]),
                    );
                    let median = stats::summarize(&ratios)?.median;
                    let widest = stats::median_interval(&ratios)?.relative_width(median);
                    return (widest > NOISY_WIDTH).then_some((g, widest));
                }
                // The first two members' ratio (T_div/T_uniform, or unbalanced/balanced) and,
                // in a k group, T_div against the k = 1 control, which the linearity fit reads.
                let pairs = [(0, 1), (0, 3)];
                let widest = pairs
                    .iter()
                    .filter(|&&(_, j)| j < group.len())
                    .filter_map(|&(i, j)| {
                        width(&samples[group.start + i], &samples[group.start + j])
                    })
                    .fold(0.0, f64::max);
                (widest > NOISY_WIDTH).then_some((g, widest))
            })
            .collect()
    }
}

fn record_params(
    result: &mut ExperimentResult,
    plan: &Plan,
    trips: u32,
    reps: usize,
    unbalanced: Option<(u32, u32, u32)>,
    main: &Dispatch,
) {
    result.param("ks", plan.ks.clone());
    result.param("workgroup_size", plan.workgroup_size);
    result.param("invocations", main.invocations);
    result.param("trips_per_path", trips);
    result.param("flops_per_trip", FLOPS_PER_TRIP);
    result.param("reps", reps);
    result.param(
        "occupancy_levels",
        plan.occupancy
            .iter()
            .map(|&(wg, n)| vec![wg, n])
            .collect::<Vec<_>>(),
    );
    if let Some((k, heavy, light)) = unbalanced {
        result.param(
            "unbalanced",
            serde_json::json!({ "k": k, "heavy_trips": heavy, "light_trips": light }),
        );
    }
}

/// Checks that each lane computed its own path's result, as the CPU model does.
fn check_results(
    gpu: &GpuContext,
    (form, selection): (Form, Selection),
    dispatch: &Dispatch,
    sg: u32,
    linear: bool,
    result: &mut ExperimentResult,
) -> Result<()> {
    let check = "every lane computes its own path's result";
    if !linear {
        result.verdict("lane_results", check, VerdictStatus::NotGuaranteed, "skipped: the lane mapping is not linear, so the CPU model cannot name each invocation's lane");
        return Ok(());
    }
    let values = dispatch.results(gpu)?;
    let params = &dispatch.params;
    let checked = CHECKED_INVOCATIONS.min(dispatch.invocations);
    let mut wrong = Vec::new();
    for gid in 0..checked {
        let sel = model::selector(
            selection,
            Mode::LaneDivergent,
            params.k,
            gid % sg,
            gid - gid % sg,
            sg,
        );
        let expected = model::expected_result(form, params, sel, gid);
        let got = values[gid as usize];
        let close = expected
            .iter()
            .zip(got)
            .all(|(e, g)| (e - g).abs() <= 1e-3 * e.abs().max(1.0));
        if !close {
            wrong.push((gid, expected, got));
        }
    }
    let detail = match wrong.first() {
        None => format!(
            "{checked} invocations match the CPU model (k = {})",
            params.k
        ),
        Some((gid, e, g)) => format!(
            "{} of {checked} differ; first: invocation {gid} expected {e:?}, got {g:?}",
            wrong.len()
        ),
    };
    result.verdict(
        "lane_results",
        check,
        VerdictStatus::held_if(wrong.is_empty()),
        detail,
    );
    Ok(())
}
