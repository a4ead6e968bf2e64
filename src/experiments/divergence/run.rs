//! Running the divergence study on a device: compile, calibrate, sweep k, time the levels, and
//! check the results. Each step has its own file; this one orders them.

use super::Divergence;
use super::analysis::{self, Measurements};
use super::calibrate;
use super::check;
use super::compile;
use super::groups::Source;
use super::kernels::{Dispatch, FLOPS_PER_TRIP, Form, Selection, Sinks};
use super::phases::{LevelTimes, Levels, Sweep, SweepTimes};
use super::plan::Plan;
use super::schedule::Timed;
use super::width;
use crate::experiments::{Experiment, Lab, Progress, RunConfig};
use crate::model::divergence as model;
use crate::report::ExperimentResult;
use crate::{Error, Result};

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
    let known_width = known_width(experiment, lab, selection)?;
    let (mut plan, compiled, observed) =
        compile::prepare(lab, config, form, selection, sinks, &mut result)?;
    progress(0.05);
    compile::warm_up(gpu, sinks, &compiled, &plan)?;
    let trips =
        calibrate::shared_trips((lab, config), (sinks, &compiled), &plan, form, &mut result)?;
    progress(0.1);
    let reps = config.reps();
    let src = Source { gpu, sinks };

    // Phase 1: the k sweep and the dispatch floor. Its F(k) shows the subgroup width.
    let sweep = Sweep::plan((src, &compiled), &plan, (form, selection), trips);
    let mut sweep_timed = sweep
        .schedule()
        .time(gpu, reps, &|f| progress(0.1 + 0.5 * f))?;
    let sweep_times = sweep.read(&mut sweep_timed);
    let sg = subgroup_width(experiment, lab, &sweep_times, (observed, known_width)).map(
        |(sg, inferred)| {
            if let Some(inference) = &inferred {
                check::record_inferred_width(&mut result, inference, observed);
            }
            sg
        },
    )?;
    plan.set_subgroup_size(sg);

    // Phase 2: occupancy levels at k = SG, each calibrated on its own, F(SG) at fewer trips, and
    // unbalanced paths.
    let level_trips = calibrate::calibrate_levels(gpu, sinks, &compiled, &plan, form, trips)?;
    let levels = Levels::plan((src, &compiled), &plan, form, (trips, &level_trips));
    let mut levels_timed = levels
        .schedule(&plan)
        .time(gpu, reps, &|f| progress(0.6 + 0.35 * f))?;
    let level_times = levels.read(&mut levels_timed);

    let k_sg = plan
        .ks
        .iter()
        .position(|&k| k == plan.occupancy_k())
        .unwrap_or(0);
    let main = &sweep.ks[0].div;
    let unbalanced = levels.unbalanced.as_ref().map(|u| (u.k, u.heavy, u.light));
    let measurements = measurements(
        (&sweep, &levels),
        (sweep_times, level_times),
        &plan,
        (form, selection),
        (trips, k_sg),
    );
    check::record_params(&mut result, &plan, trips, reps, unbalanced, main);
    result.param(
        "occupancy_trips",
        level_trips.iter().map(|c| c.trips).collect::<Vec<_>>(),
    );
    result.param("paths_compiled", form.paths_compiled(plan.max_k()));
    Timed::record_both(&sweep_timed, &levels_timed, &mut result);
    analysis::analyze(&measurements, &mut result);
    // Without subgroups, the kernel's selector names each invocation by its global index.
    let linear = observed.is_none() || lab.subgroup()?.linear_mapping;
    let checked = &sweep.ks[k_sg].div;
    check::check_results(gpu, (form, selection), checked, sg, linear, &mut result)?;
    progress(1.0);
    Ok(result)
}

/// The width a branchy form inferred before, for the loop form on an adapter without subgroups.
fn known_width(experiment: &Divergence, lab: &Lab, selection: Selection) -> Result<Option<u32>> {
    (selection == Selection::Block && experiment.form == Form::Loop)
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
        .transpose()
}

/// The subgroup size the study models with: the ballot-observed one, else the width a branchy
/// form's F(k) shows (also returned, to record, and kept for the loop form), else the width an
/// earlier form inferred.
fn subgroup_width(
    experiment: &Divergence,
    lab: &Lab,
    sweep: &SweepTimes,
    (observed, known_width): (Option<u32>, Option<u32>),
) -> Result<(u32, Option<width::WidthInference>)> {
    let floor = sweep.floor.time();
    let f_of_k: Vec<(u32, f64)> = sweep
        .ks
        .iter()
        .map(|g| (g.k, g.div.ratio_to(&g.uniform, floor).value))
        .collect();
    let inferred = (experiment.form != Form::Loop)
        .then(|| width::infer_width(&f_of_k))
        .flatten();
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
    }
    Ok((sg, inferred))
}

/// What the analysis reads, each point's model computed from the parameters its dispatches
/// actually ran with.
fn measurements(
    (sweep, levels): (&Sweep, &Levels),
    (sweep_times, level_times): (SweepTimes, LevelTimes),
    plan: &Plan,
    (form, selection): (Form, Selection),
    (trips, k_sg): (u32, usize),
) -> Measurements {
    let sg = plan.subgroup_size;
    let n = plan.saturating_invocations;
    let issued = |form, run: &Dispatch, mode| {
        model::issued_trips(form, &run.params, (mode, selection), sg, n)
    };
    let loop_form = form == Form::Loop;
    let mixed_control = sweep_times
        .ks
        .get(k_sg)
        .filter(|_| loop_form)
        .and_then(|g| Some((g.div.clone(), g.mixed.clone()?)));
    let points = sweep
        .ks
        .iter()
        .zip(sweep_times.ks)
        .map(|(group, timed)| group.point(timed, form, issued))
        .collect();
    let occupancy = levels
        .occupancy
        .iter()
        .zip(level_times.occupancy)
        .map(|(group, timed)| group.point(timed))
        .collect();
    Measurements {
        subgroup_size: sg,
        points,
        floor: sweep_times.floor,
        marginal: level_times.marginal.map(|m| m.marginal()),
        occupancy,
        unbalanced: level_times.unbalanced.map(|u| (u.k, u.balanced, u.skewed)),
        mixed_control,
        baseline_flops: f64::from(sweep.ks[0].div.invocations) * f64::from(trips) * FLOPS_PER_TRIP,
        loop_form,
        occupancy_k: plan.occupancy_k(),
    }
}
