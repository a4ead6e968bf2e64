//! The instrumented kernel run once, counting: its counters and lane records read back, the
//! textures `--save` names written, and the textures kept for the app.

use crate::Result;
use crate::gpu::{Dispatch, GpuContext, read_buffer, storage_buffer};
use crate::profile::instrument::{self, Counters, Instrumented};
use crate::profile::kernel::KernelInterface;
use crate::profile::report;

use super::bind::{Resources, dispatch, pipeline};
use super::{Request, TextureImage, textures};

/// What the counted run read back.
pub(super) struct Run {
    /// The counters.
    pub counters: Counters,
    /// The lane records at `--lanes LINE`.
    pub lanes: Option<report::LaneCapture>,
    /// The textures, where [`Request::keep_images`] asked for them.
    pub images: Vec<TextureImage>,
}

/// The label of the instrumented kernel's pipeline and dispatches.
fn instrumented_label(file: &str) -> String {
    format!("{file}{}", crate::gpu::watchdog::INSTRUMENTED)
}

/// The instrumented dispatch, run once: its counters and lane records read back, and the
/// storage textures `--save` names written before the timed runs change them again. Returns the
/// dispatch too, for the timing.
pub(super) fn counted_run(
    gpu: &GpuContext,
    request: &Request,
    interface: &KernelInterface,
    instrumented: &Instrumented,
    resources: &Resources,
) -> Result<(Dispatch, Run)> {
    let label = instrumented_label(&request.file);
    let (counted, read) = count(gpu, &label, request, interface, instrumented, resources)?;
    let Read { counters, lanes } = read;
    let images = if request.keep_images {
        textures::images(gpu, interface, &resources.textures)?
    } else {
        Vec::new()
    };
    Ok((
        counted,
        Run {
            counters,
            lanes,
            images,
        },
    ))
}

/// What one counted dispatch read back.
pub(super) struct Read {
    /// The counters.
    pub counters: Counters,
    /// The lane records at `--lanes LINE`, where the instrumentation records them.
    pub lanes: Option<report::LaneCapture>,
}

/// `instrumented` dispatched once on `resources` and its counters (and lane records) read
/// back; the storage textures `--save` names are written between the two, before any other
/// run changes them. A variant's count passes a request that saves nothing.
pub(super) fn count(
    gpu: &GpuContext,
    label: &str,
    request: &Request,
    interface: &KernelInterface,
    instrumented: &Instrumented,
    resources: &Resources,
) -> Result<(Dispatch, Read)> {
    let instrumented_pipeline = pipeline(
        gpu,
        label,
        &instrumented.wgsl,
        &instrumented.entry,
        &[],
        false,
    )?;
    let counters = storage_buffer(
        gpu,
        "divlab.profile.counters",
        u64::from(instrumented.buffer_words) * 4,
    );
    let lane_buffer = instrumented.options.lanes_block.map(|_| {
        storage_buffer(
            gpu,
            "divlab.profile.lanes",
            u64::from(1 + instrument::LANE_RECORDS * instrumented.lane_record_words) * 4,
        )
    });
    let ours: Vec<&wgpu::Buffer> = std::iter::once(&counters).chain(&lane_buffer).collect();
    let counted = dispatch(
        gpu,
        &instrumented_pipeline,
        interface,
        resources,
        Some((instrumented.options.counters_group, &ours)),
        request.dispatch,
    );
    gpu.run_batch(&gpu.first_run(label), std::slice::from_ref(&counted))?;
    // Before the timed runs write to them again.
    textures::save_textures(
        gpu,
        interface,
        request,
        &resources.textures,
        &crate::report::write_atomic,
    )?;
    let words: Vec<u32> = read_buffer(gpu, label, &counters)?;
    let lanes = lane_capture(
        gpu,
        label,
        lane_buffer.as_ref(),
        request.lanes_line,
        (instrumented.lane_record_words, interface.workgroup_size),
    )?;
    let counters = instrumented.read_counters(&words)?;
    Ok((counted, Read { counters, lanes }))
}

/// What the lanes buffer recorded at `--lanes LINE`, in workgroup and lane order; records of
/// `record_words` words, of a workgroup of `workgroup_size`.
fn lane_capture(
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
