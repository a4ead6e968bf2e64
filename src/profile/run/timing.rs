//! The kernel timed alone and instrumented, interleaved.

use std::ops::Range;

use crate::Result;
use crate::gpu::{Budget, Dispatch, GpuContext, GpuTimer};
use crate::profile::kernel::Kernel;
use crate::profile::report::TimingRecord;
use crate::stats::bootstrap_medians;

use super::bind::{Resources, dispatch, pipeline};
use super::{MIN_REPS, Request, Stage};

/// The kernel alone (the user's own source, with their overrides as pipeline constants) and
/// instrumented (`counted`), timed interleaved for as many rounds as the request's budget
/// allows, with `--cost`'s variant pairs among them (each pair back to back, so that its two
/// samples of a round are close in time) and, with them, an empty kernel over the same
/// workgroups (the floor). Returns each pair's samples too.
pub(super) fn timing(
    gpu: &GpuContext,
    request: &Request,
    kernel: &Kernel,
    resources: &Resources,
    (plain_pipeline, counted): (&wgpu::ComputePipeline, Dispatch),
    pairs: Vec<(Dispatch, Dispatch)>,
    on_stage: &mut dyn FnMut(Stage),
) -> Result<Timings> {
    let floor = if pairs.is_empty() {
        None
    } else {
        Some(empty_dispatch(gpu, kernel, request.dispatch)?)
    };
    let plain = dispatch(
        gpu,
        plain_pipeline,
        &kernel.interface,
        resources,
        None,
        request.dispatch,
    );
    let timer = GpuTimer::new(gpu);
    // A saving is a difference of two noisy times: `--cost` takes more rounds than a plain
    // profile does (the time budget still bounds them).
    let max_rounds = if pairs.is_empty() {
        request.reps.max(1)
    } else {
        request.reps.max(COST_ROUNDS)
    };
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
    // One label for every timed pass: a timeout there names the timing, not one kernel (it
    // named the instrumented kernel when the kernel alone was the one that did not end).
    let label = format!(
        "{} (timed runs: the kernel alone and instrumented{})",
        request.file,
        if pairs.is_empty() {
            ""
        } else {
            ", and --cost's variants"
        }
    );
    let pair_count = pairs.len();
    // The kernel alone, instrumented, the floor where there is one, then the pairs.
    let singles = 2 + usize::from(floor.is_some());
    let dispatches: Vec<Dispatch> = [plain, counted]
        .into_iter()
        .chain(floor)
        .chain(pairs.into_iter().flat_map(|(a, b)| [a, b]))
        .collect();
    let groups: Vec<Range<usize>> = (0..singles)
        .map(|i| i..i + 1)
        .chain((0..pair_count).map(|i| singles + 2 * i..singles + 2 + 2 * i))
        .collect();
    let mut samples =
        timer.interleave_groups(gpu, &label, (&dispatches, &groups), budget, &mut on_round)?;
    let pair_samples = samples
        .split_off(singles)
        .chunks_exact_mut(2)
        .map(|pair| (std::mem::take(&mut pair[0]), std::mem::take(&mut pair[1])))
        .collect();
    let [kernel_ns, instrumented_ns] = [0, 1].map(|i| crate::stats::median(&samples[i]));
    let interval = bootstrap_medians(&[&samples[0], &samples[1]], |m| m[1] / m[0]);
    let floor_samples = samples.get(2);
    let floor_ns = floor_samples.map(|s| crate::stats::median(s));
    // The time the predictions are priced from is a difference of two noisy medians: its
    // interval bounds theirs.
    let above_floor = floor_samples
        .and_then(|floor| bootstrap_medians(&[&samples[0], floor], |m| (m[0] - m[1]).max(0.0)));
    let record = TimingRecord {
        kernel_ns,
        instrumented_ns,
        overhead: instrumented_ns / kernel_ns,
        reps: samples[0].len(),
        time_budget_s: request.time_budget.as_secs_f64(),
        source: timer.source(),
        overhead_interval: interval.map(|i| [i.low, i.high]),
        kernel_cv: crate::stats::summarize(&samples[0]).map(|s| s.cv),
        floor_ns: floor_ns.filter(|f| f.is_finite()),
        above_floor_interval_ns: above_floor.map(|i| [i.low, i.high]),
    };
    Ok(Timings {
        record,
        pairs: pair_samples,
    })
}

/// An empty kernel of `kernel`'s workgroup size over `workgroups`: what a dispatch of that
/// shape costs with no work in it.
fn empty_dispatch(gpu: &GpuContext, kernel: &Kernel, workgroups: [u32; 3]) -> Result<Dispatch> {
    let [x, y, z] = kernel.interface.workgroup_size;
    let wgsl = format!("@compute @workgroup_size({x}, {y}, {z})\nfn main() {{}}\n");
    let label = format!("{} (empty kernel, the floor)", kernel.file);
    let pipeline = pipeline(gpu, &label, &wgsl, "main", &[], false)?;
    Ok(Dispatch {
        pipeline,
        bind_groups: Vec::new(),
        workgroups,
        immediates: Vec::new(),
        restores: Vec::new(),
    })
}

/// The kernel's times and `--cost`'s pairs.
pub(super) struct Timings {
    /// What the profile records.
    pub record: TimingRecord,
    /// Each variant pair's samples, placebo then uniform, one per round.
    pub pairs: Vec<(Vec<f64>, Vec<f64>)>,
}

/// The most rounds with `--cost`, where `--reps` asks fewer.
pub const COST_ROUNDS: usize = 41;
