//! The kernel timed alone and instrumented, and the lane records read back.

use crate::Result;
use crate::gpu::{Budget, Dispatch, GpuContext, GpuTimer, read_buffer};
use crate::profile::instrument;
use crate::profile::kernel::KernelInterface;
use crate::profile::report::{self, TimingRecord};

use super::bind::{Resources, dispatch, pipeline};
use super::{MIN_REPS, Request, Stage};

/// What the lanes buffer recorded at `--lanes LINE`, in workgroup and lane order; records of
/// `record_words` words, of a workgroup of `workgroup_size`.
pub(super) fn lane_capture(
    gpu: &GpuContext,
    label: &str,
    buffer: Option<&wgpu::Buffer>,
    line: Option<u32>,
    (record_words, workgroup_size): (u32, [u32; 3]),
) -> Result<Option<report::LaneCapture>> {
    let (Some(buffer), Some(line)) = (buffer, line) else {
        return Ok(None);
    };
    let lane_words: Vec<u32> = read_buffer(gpu, label, buffer)?;
    let (executions, records) = instrument::read_lanes(&lane_words, record_words);
    let mut records: Vec<report::LaneExecution> = records
        .into_iter()
        .map(|r| {
            let invocations = r
                .invocations
                .map(|(mask, flags)| lane_invocations(&r, mask, flags, workgroup_size));
            report::LaneExecution {
                ballot: r.ballot,
                workgroup: r.workgroup,
                first_local_index: r.first_local_index,
                invocations_complete: r
                    .invocations
                    .map(|(_, flags)| flags & instrument::LANES_COMPLETE != 0),
                invocations,
            }
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

/// A 2-D or 3-D record's active lanes: local index `first + i` for each bit `i` of `mask`, as
/// its `local_invocation_id`, with its lane where the kernel checked that lanes and local
/// indices run together ([`instrument::LANES_CONTIGUOUS`]).
fn lane_invocations(
    r: &instrument::LaneRecordRaw,
    mask: [u32; 4],
    flags: u32,
    [wx, wy, _]: [u32; 3],
) -> Vec<report::LaneInvocation> {
    let lowest = (0..128u32).find(|&i| r.ballot[(i / 32) as usize] & (1 << (i % 32)) != 0);
    let contiguous = flags & instrument::LANES_CONTIGUOUS != 0;
    (0..128u32)
        .filter(|&i| mask[(i / 32) as usize] & (1 << (i % 32)) != 0)
        .map(|i| {
            let index = r.first_local_index + i;
            let (wx, wy) = (wx.max(1), wy.max(1));
            report::LaneInvocation {
                local_id: [index % wx, index / wx % wy, index / (wx * wy)],
                lane: lowest.filter(|_| contiguous).map(|l| l + i),
            }
        })
        .collect()
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
    let samples = timer.interleave(gpu, label, &[plain, counted], budget, &mut on_round)?;
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
