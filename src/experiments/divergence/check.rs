//! What the study records beside the analysis: the width timing inferred, the run's params, and
//! the check of each lane's result against the CPU model.

use super::kernels::{Dispatch, FLOPS_PER_TRIP, Form, Mode, Selection, UNIFORM_BLOCK};
use super::plan::Plan;
use super::width;
use crate::Result;
use crate::gpu::GpuContext;
use crate::model::divergence as model;
use crate::report::{ExperimentResult, VerdictStatus};

/// Invocations whose results are checked against the CPU model.
const CHECKED_INVOCATIONS: u32 = 512;

/// The width timing showed, beside the ballot-observed size where there is one.
pub(super) fn record_inferred_width(
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

pub(super) fn record_params(
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
pub(super) fn check_results(
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
