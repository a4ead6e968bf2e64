//! `subgroup.size`: the subgroup size actually used, measured from a ballot's popcount, the
//! mapping from `local_invocation_index` to `subgroup_invocation_id`, and a timed kernel.

use std::collections::BTreeMap;

use crate::experiments::fma_chain::FmaChain;
use crate::experiments::{Progress, RunConfig, RunContext};
use crate::gpu::{
    Budget, GpuContext, GpuTimer, Kernel, RuntimeChecks, read_buffer, storage_buffer,
};
use crate::report::{
    ExperimentInfo, ExperimentResult, Family, Figure, LaneRecord, Point, Series, VerdictStatus,
};
use crate::shaders;
pub use crate::shaders::subgroup_size::{SizeRecord, WORKGROUP_SIZE};
use crate::{Result, stats};

/// The probe kernel. No loops; the checked default is fine.
pub const KERNEL: Kernel = Kernel::of(&shaders::SUBGROUP_SIZE, "main", RuntimeChecks::Checked);

const WORKGROUPS: u32 = 4;

/// What the probe saw.
#[derive(Clone, Debug)]
pub struct SubgroupObservation {
    /// The largest ballot popcount: the subgroup size actually used.
    pub size: u32,
    /// Every distinct value of the `subgroup_size` builtin across the dispatch.
    pub builtin_sizes: Vec<u32>,
    /// Whether `subgroup_invocation_id == local_invocation_index % size` for every invocation.
    pub linear_mapping: bool,
    /// Subgroups whose ballot at entry held every lane, and all subgroups.
    pub full_subgroups: (usize, usize),
    /// Every invocation's record, workgroup by workgroup.
    pub records: Vec<SizeRecord>,
}

/// Runs the probe kernel and summarizes it.
pub fn observe(gpu: &GpuContext) -> Result<SubgroupObservation> {
    gpu.require_subgroups("the subgroup probe")?;
    let pipeline = KERNEL.pipeline(gpu, KERNEL.source, &[])?;
    let count = u64::from(WORKGROUPS * WORKGROUP_SIZE);
    let buffer = storage_buffer(
        gpu,
        "divlab.subgroup_size.records",
        count * size_of::<SizeRecord>() as u64,
    );
    gpu.dispatch("divlab.subgroup_size", &pipeline, &[&buffer], WORKGROUPS)?;
    let records: Vec<SizeRecord> = read_buffer(gpu, "divlab.subgroup_size", &buffer)?;
    Ok(summarize(records))
}

fn summarize(records: Vec<SizeRecord>) -> SubgroupObservation {
    let size = records.iter().map(|r| r.ballot_popcount).max().unwrap_or(0);
    let mut builtin_sizes: Vec<u32> = records.iter().map(|r| r.subgroup_size).collect();
    builtin_sizes.sort_unstable();
    builtin_sizes.dedup();
    let linear_mapping = size > 0
        && records
            .iter()
            .all(|r| r.subgroup_invocation_id == r.local_index % size);
    let subgroups = group_subgroups(&records);
    let full = subgroups
        .values()
        .filter(|lanes| lanes.iter().all(|r| r.ballot_popcount == r.subgroup_size))
        .count();
    SubgroupObservation {
        size,
        builtin_sizes,
        linear_mapping,
        full_subgroups: (full, subgroups.len()),
        records,
    }
}

/// Groups records by (workgroup, first local index of the subgroup), lanes in
/// `subgroup_invocation_id` order.
fn group_subgroups(records: &[SizeRecord]) -> BTreeMap<(u32, u32), Vec<SizeRecord>> {
    let mut groups: BTreeMap<(u32, u32), Vec<SizeRecord>> = BTreeMap::new();
    for r in records {
        groups
            .entry((r.workgroup, r.subgroup_first_index))
            .or_default()
            .push(*r);
    }
    for lanes in groups.values_mut() {
        lanes.sort_by_key(|r| r.subgroup_invocation_id);
    }
    groups
}

/// The `subgroup.size` experiment.
pub struct SubgroupSize;

fn run(ctx: RunContext<'_>) -> Result<ExperimentResult> {
    let (lab, config, progress) = ctx.parts();
    let obs = lab.subgroup()?;
    let info = &lab.gpu.info;
    let mut result = INFO.new_result();
    result.param("workgroup_size", WORKGROUP_SIZE);
    result.param("workgroups", WORKGROUPS);
    result.metric("observed_subgroup_size", f64::from(obs.size));
    result.metric(
        "adapter_subgroup_min_size",
        f64::from(info.subgroup_min_size),
    );
    result.metric(
        "adapter_subgroup_max_size",
        f64::from(info.subgroup_max_size),
    );
    add_size_verdicts(&mut result, obs, info);
    result.lanes = lane_records(obs);
    progress(0.2);
    time_fma_chain(&lab.gpu, config, &mut result, progress)?;
    Ok(result)
}

fn add_size_verdicts(
    result: &mut ExperimentResult,
    obs: &SubgroupObservation,
    info: &wgpu::AdapterInfo,
) {
    let sizes = format!("{:?}", obs.builtin_sizes);
    let valid = obs
        .builtin_sizes
        .iter()
        .all(|s| s.is_power_of_two() && (4..=128).contains(s));
    result.verdict(
        "power_of_two",
        "subgroup_size builtin is a power of two in [4, 128]",
        VerdictStatus::held_if(valid),
        format!("subgroup_size values seen: {sizes}"),
    );
    result.verdict(
        "uniform_size",
        "subgroup_size is uniform within the dispatch",
        VerdictStatus::held_if(obs.builtin_sizes.len() == 1),
        format!("distinct values: {sizes}"),
    );
    let in_range = (info.subgroup_min_size..=info.subgroup_max_size).contains(&obs.size);
    result.verdict(
        "in_adapter_range",
        "observed size lies in the adapter's reported range",
        VerdictStatus::consistent_if(in_range),
        format!(
            "ballot popcount {} vs adapter range {}..={}",
            obs.size, info.subgroup_min_size, info.subgroup_max_size
        ),
    );
    let (full, total) = obs.full_subgroups;
    result.verdict(
        "full_at_entry",
        "all lanes active at kernel entry",
        VerdictStatus::NotGuaranteed,
        format!("observed: ballot(true) held subgroup_size lanes in {full}/{total} subgroups"),
    );
    result.verdict(
        "lane_mapping",
        "mapping local_invocation_index -> subgroup_invocation_id",
        VerdictStatus::NotGuaranteed,
        if obs.linear_mapping {
            format!("observed: linear (sid = lid % {})", obs.size)
        } else {
            "observed: not linear".to_owned()
        },
    );
}

/// Lane records of the first workgroup, for the lane grid.
fn lane_records(obs: &SubgroupObservation) -> Vec<LaneRecord> {
    group_subgroups(&obs.records)
        .into_iter()
        .filter(|((workgroup, _), _)| *workgroup == 0)
        .enumerate()
        .map(|(subgroup, (_, lanes))| LaneRecord {
            point: 0,
            subgroup: subgroup as u32,
            local_index: lanes.iter().map(|r| r.local_index).collect(),
            ballot: lanes.iter().map(|r| r.ballot).collect(),
            value: lanes.iter().map(|r| r.ballot_popcount).collect(),
        })
        .collect()
}

/// Times `fma_chain` at 1x and 4x the work, round-robin, and checks the timer scales.
fn time_fma_chain(
    gpu: &GpuContext,
    config: &RunConfig,
    result: &mut ExperimentResult,
    progress: Progress<'_>,
) -> Result<()> {
    // Enough lanes to fill the device: a CPU device is full with a few workgroups per core.
    let workgroups = if gpu.info.device_type == wgpu::DeviceType::Cpu {
        256
    } else {
        16384
    };
    let iterations = if config.quick { 64 } else { 256 };
    let kernels = [
        FmaChain::new(gpu, workgroups, iterations)?,
        FmaChain::new(gpu, workgroups, 4 * iterations)?,
    ];
    let timer = GpuTimer::new(gpu);
    let reps = config.reps();
    let samples = timer.interleave(
        gpu,
        "divlab.fma_chain",
        &kernels.each_ref().map(|k| k.dispatch().clone()),
        Budget::rounds(reps),
        &mut |round| progress(0.2 + 0.8 * round as f64 / reps as f64),
    )?;
    let [small, large] =
        [0, 1].map(|i| stats::summarize(&samples[i]).expect("reps >= 1 and times are finite"));
    result.param("fma_workgroups", workgroups);
    result.param("fma_iterations", iterations);
    result.param("reps", reps);
    result.param(
        "timing_source",
        serde_json::to_value(timer.source()).expect("enum serializes"),
    );
    result.metric("fma_ns", small.median);
    result.metric("fma_4x_ns", large.median);
    result.metric("fma_cv", small.cv);
    result.metric("fma_gflops", kernels[1].flops() / large.median);
    let scaling = large.median / small.median;
    result.metric("timer_scaling_4x", scaling);
    result.series.push(Series {
        name: "fma_time".to_owned(),
        x_label: "work (x)".to_owned(),
        y_label: "time (ns)".to_owned(),
        points: [(1.0, small), (4.0, large)]
            .map(|(x, s)| Point {
                x,
                y: s.median,
                y_min: Some(s.min),
                y_max: Some(s.max),
            })
            .to_vec(),
    });
    result.verdict(
        "timer_scales",
        "timer grows with work",
        VerdictStatus::consistent_if((2.0..=8.0).contains(&scaling)),
        format!(
            "4x the FMAs took {scaling:.2}x the time ({:.0} ns -> {:.0} ns, {:?})",
            small.median,
            large.median,
            timer.source()
        ),
    );
    Ok(())
}

/// What `subgroup.size` declares.
pub const INFO: ExperimentInfo = ExperimentInfo {
    id: "subgroup.size",
    family: Family::Subgroup,
    title: "Subgroup size and lane mapping",
    rule: "The subgroup size is a power of two in [4, 128], uniform within a dispatch; \
           WGSL defines no mapping from local_invocation_index to subgroup_invocation_id",
    source: "WGSL: the subgroup_size built-in value",
    shaders: &[&shaders::SUBGROUP_SIZE, &shaders::FMA_CHAIN],
    figures: &[
        Figure::new("observed_subgroup_size", "SG", 0, Some("power_of_two")),
        Figure::new("fma_ns", "FMA (ns)", 0, None),
        Figure::new("fma_gflops", "FMA GFLOP/s", 0, None),
        Figure::new("timer_scaling_4x", "4x work / 1x", 2, Some("timer_scales")),
    ],
    fit: None,
};

declare_experiment!(SubgroupSize, INFO, run);
