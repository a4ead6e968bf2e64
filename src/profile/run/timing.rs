//! The kernel timed alone and instrumented, and the lane records read back.

use crate::Result;
use crate::gpu::{Budget, Dispatch, GpuContext, GpuTimer, read_buffer};
use crate::profile::instrument;
use crate::profile::kernel::KernelInterface;
use crate::profile::report::{self, TimingRecord};

use super::bind::{Resources, dispatch, pipeline};
use super::{MIN_REPS, Request, Stage};

/// What the lanes buffer recorded at `--lanes LINE`, in workgroup and lane order.
pub(super) fn lane_capture(
    gpu: &GpuContext,
    label: &str,
    buffer: Option<&wgpu::Buffer>,
    line: Option<u32>,
) -> Result<Option<report::LaneCapture>> {
    let (Some(buffer), Some(line)) = (buffer, line) else {
        return Ok(None);
    };
    let lane_words: Vec<u32> = read_buffer(gpu, label, buffer)?;
    let (executions, records) = instrument::read_lanes(&lane_words);
    let mut records: Vec<report::LaneExecution> = records
        .into_iter()
        .map(|r| report::LaneExecution {
            ballot: r.ballot,
            workgroup: r.workgroup,
            first_local_index: r.first_local_index,
        })
        .collect();
    // Subgroups arrive in any order; one subgroup's executions (loop trips) keep theirs.
    records.sort_by_key(|r| {
        let [x, y, z] = r.workgroup;
        (z, y, x, r.first_local_index)
    });
    Ok(Some(report::LaneCapture {
        line,
        executions,
        records,
    }))
}

/// The kernel alone (the user's own source, with their overrides as pipeline constants) and
/// instrumented (`counted`), timed interleaved for as many rounds as the request's budget
/// allows.
pub(super) fn timing(
    gpu: &GpuContext,
    request: &Request,
    interface: &KernelInterface,
    resources: &Resources,
    counted: Dispatch,
    label: &str,
    on_stage: &mut dyn FnMut(Stage),
) -> Result<TimingRecord> {
    let constants: Vec<(&str, f64)> = request
        .overrides
        .iter()
        .map(|(name, value)| (name.as_str(), *value))
        .collect();
    let plain_pipeline = pipeline(
        gpu,
        &request.file,
        &request.source,
        &interface.entry,
        &constants,
    )?;
    let plain = dispatch(
        gpu,
        &plain_pipeline,
        interface,
        resources,
        None,
        request.dispatch,
    );
    let timer = GpuTimer::new(gpu);
    let max_rounds = request.reps.max(1);
    let budget = Budget {
        min_rounds: MIN_REPS,
        max_rounds,
        time: request.time_budget,
    };
    on_stage(Stage::Timing {
        done: 0,
        of: max_rounds,
    });
    let mut on_round = |done| {
        on_stage(Stage::Timing {
            done,
            of: max_rounds,
        });
    };
    let samples = timer.interleave_within(gpu, label, &[plain, counted], budget, &mut on_round)?;
    let [kernel_ns, instrumented_ns] =
        [0, 1].map(|i| crate::stats::summarize(&samples[i]).map_or(f64::NAN, |s| s.median));
    Ok(TimingRecord {
        kernel_ns,
        instrumented_ns,
        overhead: instrumented_ns / kernel_ns,
        reps: samples[0].len(),
        time_budget_s: request.time_budget.as_secs_f64(),
        source: timer.source(),
    })
}
