//! Running the divergence study on a device: compile, calibrate, time round-robin, check results.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::Result;
use crate::experiments::divergence::Divergence;
use crate::experiments::divergence::analysis::{
    self, KPoint, Measurements, OccupancyPoint, Timing,
};
use crate::experiments::divergence::kernels::{
    Compiled, Dispatch, DivergenceParams, FLOPS_PER_TRIP, Form, Mode, Sinks,
};
use crate::experiments::divergence::plan::Plan;
use crate::experiments::{Experiment, Lab, Progress, RunConfig};
use crate::gpu::{GpuContext, GpuTimer};
use crate::model::divergence as model;
use crate::report::{ExperimentResult, VerdictStatus};
use crate::stats;

/// Trip counts stay below this, so no loop can run away whatever the calibration measures.
const MAX_TRIPS: u32 = 1 << 16;

/// The lab memo keys of the shared calibration; quick and full plans have different targets.
const CALIBRATION_KEY: &str = "divergence.calibration";
const CALIBRATION_KEY_QUICK: &str = "divergence.calibration.quick";

/// Invocations whose results are checked against the CPU model.
const CHECKED_INVOCATIONS: u32 = 512;

pub fn run(
    experiment: &Divergence,
    lab: &Lab,
    config: &RunConfig,
    progress: Progress<'_>,
) -> Result<ExperimentResult> {
    let gpu = &lab.gpu;
    gpu.require_subgroups(experiment.id())?;
    let observed = lab.subgroup()?;
    let sg = observed.size;
    let limits = gpu.device.limits();
    let plan = Plan::new(
        sg,
        config.quick,
        gpu.info.device_type,
        limits.max_compute_invocations_per_workgroup,
    );
    let form = experiment.form;
    let mut result = experiment.new_result();

    let compiled = compile_all(gpu, form, &plan)?;
    progress(0.05);
    let sinks = &Sinks::default();
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
    let calibration = lab.memo(key, || calibrate(gpu, sinks, predicated, &plan))?;
    let trips = calibration.trips;
    result.param(
        "calibration",
        calibration
            .trace
            .iter()
            .map(|&(n, t)| vec![f64::from(n), t])
            .collect::<Vec<_>>(),
    );
    let loop_form = form == Form::Loop;
    let trips_of = move |j: u32| if loop_form { (j + 1) * trips } else { trips };

    // Dispatches that are compared with each other form a group, and run back to back (see
    // `Schedule::time`): one group per k, per occupancy level, and the unbalanced pair.
    let mut runs = Vec::new();
    let mut groups = Vec::new();
    for &k in &plan.ks {
        let start = runs.len();
        let main = compiled.get(form, plan.workgroup_size);
        let predicated = compiled.get(Form::Predicated, plan.workgroup_size);
        // The last is the k = 1 control: the clock that this k's control is read against.
        for (pipeline, mode, k) in [
            (main, Mode::LaneDivergent, k),
            (main, Mode::SubgroupUniform, k),
            (predicated, Mode::LaneDivergent, k),
            (main, Mode::SubgroupUniform, 1),
        ] {
            let params = DivergenceParams::new(k, mode, trips_of);
            runs.push(Dispatch::new(
                gpu,
                sinks,
                pipeline,
                &params,
                plan.saturating_invocations,
            ));
        }
        groups.push(start..runs.len());
    }
    for (wg, invocations) in &plan.occupancy {
        let k = plan.occupancy_k();
        let pipeline = compiled.get(form, *wg);
        let start = runs.len();
        for mode in [Mode::LaneDivergent, Mode::SubgroupUniform] {
            let params = DivergenceParams::new(k, mode, trips_of);
            runs.push(Dispatch::new(gpu, sinks, pipeline, &params, *invocations));
        }
        groups.push(start..runs.len());
    }
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
        let pipeline = compiled.get(form, plan.workgroup_size);
        groups.push(runs.len()..runs.len() + 2);
        runs.push(Dispatch::new(
            gpu,
            sinks,
            pipeline,
            &balanced,
            plan.saturating_invocations,
        ));
        runs.push(Dispatch::new(
            gpu,
            sinks,
            pipeline,
            &skewed,
            plan.saturating_invocations,
        ));
        (k, heavy, light)
    });

    let reps = config.reps();
    let schedule = Schedule {
        runs: &runs,
        groups: &groups,
    };
    let times = schedule.time(gpu, reps, &|f| progress(0.1 + 0.85 * f))?;

    // Each point's model is computed from the parameters its dispatches actually ran with.
    let n = plan.saturating_invocations;
    let issued = |form, run: &Dispatch, mode| model::issued_trips(form, &run.params, mode, sg, n);
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
    let occupancy = plan
        .occupancy
        .iter()
        .zip(&groups[plan.ks.len()..])
        .map(|(&(workgroup_size, _), group)| OccupancyPoint {
            workgroup_size,
            invocations: runs[group.start].invocations,
            div: times[group.start].clone(),
            uniform: times[group.start + 1].clone(),
        })
        .collect();
    let unbalanced_times = unbalanced.map(|(k, _, _)| {
        let group = groups
            .last()
            .expect("the unbalanced pair is the last group");
        (
            k,
            times[group.start].clone(),
            times[group.start + 1].clone(),
        )
    });
    let measurements = Measurements {
        subgroup_size: sg,
        points,
        occupancy,
        unbalanced: unbalanced_times,
        baseline_flops: f64::from(runs[0].invocations) * f64::from(trips) * FLOPS_PER_TRIP,
        loop_form,
        occupancy_k: plan.occupancy_k(),
    };

    record_params(&mut result, &plan, trips, reps, unbalanced, &runs[0]);
    result.param("paths_compiled", form.paths_compiled(plan.max_k()));
    analysis::analyze(&measurements, &mut result);
    let k_sg = plan
        .ks
        .iter()
        .position(|&k| k == plan.occupancy_k())
        .unwrap_or(0);
    check_results(
        gpu,
        form,
        &runs[groups[k_sg].start],
        sg,
        observed.linear_mapping,
        &mut result,
    )?;
    progress(1.0);
    Ok(result)
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
fn compile_all(gpu: &GpuContext, form: Form, plan: &Plan) -> Result<CompiledSet> {
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
                        done.push((i, Compiled::new(gpu, form, paths, wg)));
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
    let timer = GpuTimer::new(gpu);
    let params = DivergenceParams::new(1, Mode::LaneDivergent, |_| 1);
    for pipeline in compiled.pipelines.values() {
        Dispatch::new(gpu, sinks, pipeline, &params, plan.saturating_invocations)
            .time(gpu, &timer)?;
    }
    Ok(())
}

/// Finds the trip count that makes the k = 1 dispatch take about `plan.target_ns`. Time is
/// affine in trips (launch overhead plus work), so rescaling converges within a few rounds.
fn calibrate(
    gpu: &GpuContext,
    sinks: &Sinks,
    compiled: &Compiled,
    plan: &Plan,
) -> Result<Calibration> {
    let timer = GpuTimer::new(gpu);
    spin_up(gpu, sinks, compiled, plan, &timer)?;
    let mut trips = 4u32;
    let mut trace = Vec::new();
    for _ in 0..8 {
        let params = DivergenceParams::new(1, Mode::LaneDivergent, |_| trips);
        let dispatch = Dispatch::new(gpu, sinks, compiled, &params, plan.saturating_invocations);
        dispatch.time(gpu, &timer)?; // Warm-up.
        let samples = (0..5)
            .map(|_| dispatch.time(gpu, &timer))
            .collect::<Result<Vec<_>>>()?;
        // The fastest sample: on a shared CPU interruptions only add time, and a slowed
        // calibration would set too few trips.
        let t = stats::summarize(&samples).map_or(0.0, |s| s.min).max(1.0);
        trace.push((trips, t));
        if (t / plan.target_ns - 1.0).abs() < 0.1 || trips == MAX_TRIPS {
            break;
        }
        let next = f64::from(trips) * plan.target_ns / t;
        trips = next.round().clamp(1.0, f64::from(MAX_TRIPS)) as u32;
    }
    Ok(Calibration { trips, trace })
}

/// The calibrated trip count and how it was found: (trips, fastest ns) per round.
#[derive(Clone)]
struct Calibration {
    trips: u32,
    trace: Vec<(u32, f64)>,
}

/// Keeps the device busy for a while before calibrating. A GPU that idled while kernels
/// compiled runs at idle clocks for its first dispatches (seen on the H200: 5x slower), and a
/// calibration taken then sets trip counts far too low.
fn spin_up(
    gpu: &GpuContext,
    sinks: &Sinks,
    compiled: &Compiled,
    plan: &Plan,
    timer: &GpuTimer,
) -> Result<()> {
    const SPIN_UP: std::time::Duration = std::time::Duration::from_millis(300);
    if gpu.info.device_type == wgpu::DeviceType::Cpu {
        return Ok(());
    }
    let params = DivergenceParams::new(1, Mode::LaneDivergent, |_| 256);
    let dispatch = Dispatch::new(gpu, sinks, compiled, &params, plan.saturating_invocations);
    let start = std::time::Instant::now();
    while start.elapsed() < SPIN_UP {
        dispatch.time(gpu, timer)?;
    }
    Ok(())
}

/// What to time, and what belongs together.
struct Schedule<'a> {
    runs: &'a [Dispatch],
    /// Ranges of `runs` that are compared with each other; they run back to back.
    groups: &'a [std::ops::Range<usize>],
}

impl Schedule<'_> {
    /// Times every dispatch `reps` times after one warm-up each. Each round visits the groups,
    /// and the dispatches in a group, in a fresh random order (fixed seed, so runs repeat):
    /// compared dispatches stay close in time, and no dispatch always follows the same
    /// neighbour (on lavapipe a dispatch right after a long one ran measurably slower).
    fn time(&self, gpu: &GpuContext, reps: usize, progress: Progress<'_>) -> Result<Vec<Timing>> {
        let timer = GpuTimer::new(gpu);
        for run in self.runs {
            run.time(gpu, &timer)?;
        }
        let mut rng = fastrand::Rng::with_seed(0xd1f1ab);
        let mut group_order: Vec<usize> = (0..self.groups.len()).collect();
        let mut samples = vec![Vec::with_capacity(reps); self.runs.len()];
        for rep in 0..reps {
            rng.shuffle(&mut group_order);
            for &g in &group_order {
                let mut members: Vec<usize> = self.groups[g].clone().collect();
                rng.shuffle(&mut members);
                for i in members {
                    samples[i].push(self.runs[i].time(gpu, &timer)?);
                }
            }
            progress((rep + 1) as f64 / reps as f64);
        }
        Ok(samples
            .into_iter()
            .map(|s| Timing::new(s).expect("reps >= 1 and times are finite"))
            .collect())
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
    form: Form,
    dispatch: &Dispatch,
    sg: u32,
    linear: bool,
    result: &mut ExperimentResult,
) -> Result<()> {
    let check = "every lane computes its own path's result";
    if !linear {
        result.verdict(check, VerdictStatus::NotGuaranteed, "skipped: the lane mapping is not linear, so the CPU model cannot name each invocation's lane");
        return Ok(());
    }
    let values = dispatch.results(gpu)?;
    let params = &dispatch.params;
    let checked = CHECKED_INVOCATIONS.min(dispatch.invocations);
    let mut wrong = Vec::new();
    for gid in 0..checked {
        let sel = model::selector(Mode::LaneDivergent, params.k, gid % sg, gid - gid % sg, sg);
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
    result.verdict(check, VerdictStatus::held_if(wrong.is_empty()), detail);
    Ok(())
}
