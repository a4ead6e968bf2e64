//! The kernel timed alone and instrumented, interleaved.

use crate::Result;
use crate::gpu::{Budget, Dispatch, GpuContext, GpuTimer};
use crate::profile::kernel::Kernel;
use crate::profile::report::TimingRecord;

use super::bind::{Resources, dispatch, pipeline};
use super::counted::instrumented_label;
use super::{MIN_REPS, Request, Stage};

/// The kernel alone (the user's own source, with their overrides as pipeline constants) and
/// instrumented (`counted`), timed interleaved for as many rounds as the request's budget
/// allows.
pub(super) fn timing(
    gpu: &GpuContext,
    request: &Request,
    kernel: &Kernel,
    resources: &Resources,
    counted: Dispatch,
    on_stage: &mut dyn FnMut(Stage),
) -> Result<TimingRecord> {
    // The source the kernel parsed, already validated: only the device compiles it again.
    let plain_pipeline = pipeline(
        gpu,
        &kernel.file,
        &kernel.source,
        &kernel.interface.entry,
        &kernel.constants(),
        true,
    )?;
    let plain = dispatch(
        gpu,
        &plain_pipeline,
        &kernel.interface,
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
    let label = instrumented_label(&request.file);
    let samples = timer.interleave(gpu, &label, &[plain, counted], budget, &mut on_round)?;
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
