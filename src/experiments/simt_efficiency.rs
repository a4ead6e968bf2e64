//! `simt.efficiency`: how many lanes run each path of a k-way lane divergence together, read
//! from ballots rather than timed. Seed 004's cost model says a subgroup issues each of its
//! paths once with all of that path's lanes, so a path instance holds SG/k lanes on average
//! ("warp execution efficiency falls as 32/k"). WGSL guarantees less: a path's ballot holds
//! the lane itself and only lanes on the same path; an implementation may split a path further.

use std::collections::{BTreeMap, BTreeSet};

use crate::Result;
use crate::experiments::RunContext;
use crate::gpu::{GpuContext, Kernel, RuntimeChecks, read_buffer, storage_buffer};
use crate::report::{ExperimentInfo, ExperimentResult, Family, Figure, LaneRecord, VerdictStatus};
use crate::shaders;

/// Invocations per workgroup; the kernel's `WORKGROUP_SIZE` override.
pub const WORKGROUP_SIZE: u32 = 64;

/// Workgroups per dispatch: 128 subgroups of 8 on lavapipe, 32 of 32 on NVIDIA.
pub const WORKGROUPS: u32 = 16;

/// The kernel: its one loop runs K times, a pipeline constant, so it needs no guards, but
/// nothing here is timed and the guards stay on.
pub const KERNEL: Kernel = Kernel::of(&shaders::SIMT_EFFICIENCY, "main", RuntimeChecks::Checked);

/// The path counts run on a device of subgroup size `sg`: powers of two up to SG, and 3, whose
/// paths hold unequal numbers of lanes.
pub fn path_counts(sg: u32) -> Vec<u32> {
    [1, 2, 3, 4, 8, 16, 32, 64, 128]
        .into_iter()
        .filter(|&k| k <= sg)
        .collect()
}

/// One invocation's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane {
    /// `subgroup_invocation_id`, also its bit in a ballot.
    pub lane: u32,
    /// The `subgroup_size` builtin.
    pub size: u32,
    /// (workgroup, smallest local index of its subgroup): names the subgroup.
    pub subgroup: (u32, u32),
    /// The ballot taken on its path.
    pub ballot: [u32; 4],
}

/// The kernel's records, two `vec4<u32>` per invocation (see the shader).
pub fn decode(words: &[[u32; 4]]) -> Vec<Lane> {
    words
        .chunks_exact(2)
        .map(|pair| {
            let [lane, size, first, workgroup] = pair[0];
            Lane {
                lane,
                size,
                subgroup: (workgroup, first),
                ballot: pair[1],
            }
        })
        .collect()
}

/// What one k showed, over every subgroup of its dispatch.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathCount {
    /// Paths.
    pub k: u32,
    /// Subgroups seen.
    pub subgroups: usize,
    /// Lanes seen.
    pub lanes: usize,
    /// Path instances: distinct ballots per subgroup, summed.
    pub instances: usize,
    /// Path instances of the SIMT model: distinct paths among each subgroup's lanes, summed.
    pub model_instances: usize,
    /// Lanes whose ballot lacks the lane itself or holds a lane that is not on its path in
    /// its subgroup.
    pub outside: usize,
    /// The largest `subgroup_size` seen.
    pub size: u32,
}

impl PathCount {
    /// Active lanes per path instance, observed.
    pub fn active(&self) -> f64 {
        self.lanes as f64 / self.instances.max(1) as f64
    }

    /// Active lanes per path instance, as the SIMT model has it.
    pub fn model_active(&self) -> f64 {
        self.lanes as f64 / self.model_instances.max(1) as f64
    }
}

fn has(ballot: &[u32; 4], lane: u32) -> bool {
    lane < 128 && ballot[(lane / 32) as usize] & (1 << (lane % 32)) != 0
}

/// Counts the path instances of one dispatch at `k` paths (path = lane % k).
pub fn tally(k: u32, lanes: &[Lane]) -> PathCount {
    let mut by_subgroup: BTreeMap<(u32, u32), Vec<&Lane>> = BTreeMap::new();
    for lane in lanes {
        by_subgroup.entry(lane.subgroup).or_default().push(lane);
    }
    let mut count = PathCount {
        k,
        subgroups: by_subgroup.len(),
        lanes: lanes.len(),
        ..PathCount::default()
    };
    for members in by_subgroup.values() {
        let ids: BTreeSet<u32> = members.iter().map(|l| l.lane).collect();
        let ballots: BTreeSet<[u32; 4]> = members.iter().map(|l| l.ballot).collect();
        let paths: BTreeSet<u32> = ids.iter().map(|id| id % k).collect();
        count.instances += ballots.len();
        count.model_instances += paths.len();
        count.size = count
            .size
            .max(members.iter().map(|l| l.size).max().unwrap_or(0));
        count.outside += members
            .iter()
            .filter(|l| {
                let on_path = |b: u32| ids.contains(&b) && b % k == l.lane % k;
                !has(&l.ballot, l.lane) || (0..128).any(|b| has(&l.ballot, b) && !on_path(b))
            })
            .count();
    }
    count
}

/// One dispatch at `k` paths: every invocation's record.
fn dispatch(gpu: &GpuContext, k: u32) -> Result<Vec<Lane>> {
    let label = "divlab.simt_efficiency";
    let constants = [
        ("WORKGROUP_SIZE", f64::from(WORKGROUP_SIZE)),
        ("K", f64::from(k)),
    ];
    let pipeline = KERNEL.pipeline(gpu, KERNEL.source, &constants)?;
    let invocations = u64::from(WORKGROUPS * WORKGROUP_SIZE);
    let records = storage_buffer(gpu, &format!("{label}.records"), invocations * 32);
    gpu.dispatch(label, &pipeline, &[&records], WORKGROUPS)?;
    Ok(decode(&read_buffer(gpu, label, &records)?))
}

fn run(ctx: RunContext<'_>) -> Result<ExperimentResult> {
    let (lab, _, progress) = ctx.parts();
    let gpu = &lab.gpu;
    gpu.require_subgroups(INFO.id)?;
    let sg = lab.subgroup()?.size;
    let ks = path_counts(sg);
    let mut result = INFO.new_result();
    let mut counts = Vec::new();
    for (point, &k) in (0u32..).zip(&ks) {
        let lanes = dispatch(gpu, k)?;
        result.lanes.extend(lane_records(point, k, &lanes));
        counts.push(tally(k, &lanes));
        progress(f64::from(point + 1) / ks.len() as f64);
    }
    result.param("ks", ks);
    result.param("workgroup_size", WORKGROUP_SIZE);
    result.param("workgroups", WORKGROUPS);
    result.param(
        "path",
        "subgroup_invocation_id % k, one loop iteration per path",
    );
    report(&counts, &mut result);
    Ok(result)
}

/// The verdicts and metrics of every k.
pub fn report(counts: &[PathCount], result: &mut ExperimentResult) {
    let outside: usize = counts.iter().map(|c| c.outside).sum();
    let lanes: usize = counts.iter().map(|c| c.lanes).sum();
    result.verdict(
        "ballot_within_path",
        "a ballot taken on a path holds the lane itself and only lanes of its subgroup on the \
         same path",
        VerdictStatus::held_if(outside == 0),
        format!("{outside} of {lanes} ballots hold a lane off their path or miss their own"),
    );
    let mut matched = true;
    let mut per_k = Vec::new();
    for c in counts {
        let k = c.k;
        result.metric(&format!("active_lanes_k{k}"), c.active());
        result.metric(&format!("model_active_lanes_k{k}"), c.model_active());
        result.metric(
            &format!("efficiency_k{k}"),
            c.active() / f64::from(c.size.max(1)),
        );
        matched &= c.instances == c.model_instances;
        per_k.push(format!(
            "k = {k}: {:.2} (model {:.2})",
            c.active(),
            c.model_active()
        ));
    }
    if let Some(last) = counts.last() {
        result.metric("active_lanes_at_sg", last.active());
    }
    result.verdict(
        "simt_efficiency",
        "each path runs once per subgroup with all of its lanes: SG/k active lanes per path \
         (SIMT cost model; not guaranteed by WGSL)",
        VerdictStatus::consistent_if(matched),
        format!("active lanes per path instance: {}", per_k.join(", ")),
    );
}

/// The first workgroup at one k, one record per subgroup: each lane's ballot, and as value its
/// path. A record's position in the workgroup is its `local_invocation_index` (1-D workgroups).
fn lane_records(point: u32, k: u32, lanes: &[Lane]) -> Vec<LaneRecord> {
    let first = &lanes[..(WORKGROUP_SIZE as usize).min(lanes.len())];
    let mut by_subgroup: BTreeMap<u32, Vec<(u32, &Lane)>> = BTreeMap::new();
    for (local_index, lane) in (0u32..).zip(first) {
        by_subgroup
            .entry(lane.subgroup.1)
            .or_default()
            .push((local_index, lane));
    }
    (0u32..)
        .zip(by_subgroup.into_values())
        .map(|(subgroup, mut members)| {
            members.sort_by_key(|(_, l)| l.lane);
            LaneRecord {
                point,
                subgroup,
                local_index: members.iter().map(|&(i, _)| i).collect(),
                ballot: members.iter().map(|(_, l)| l.ballot).collect(),
                value: members.iter().map(|(_, l)| l.lane % k).collect(),
            }
        })
        .collect()
}

/// The key figure, on which `simt_efficiency` is decided.
const ACTIVE_LANES: Figure = Figure::new(
    "active_lanes_at_sg",
    "active lanes per path at k = SG",
    2,
    Some("simt_efficiency"),
);

/// What `simt.efficiency` declares.
pub const INFO: ExperimentInfo = ExperimentInfo {
    id: "simt.efficiency",
    family: Family::Simt,
    title: "SIMT efficiency: active lanes per path of a k-way divergence, from ballots",
    rule: "A subgroup issues each of its k divergent paths once, with all of that path's lanes: \
           execution efficiency falls as SG/k",
    source: "“Characterizing Warp Divergence from Pascal to Blackwell”",
    shaders: &[&shaders::SIMT_EFFICIENCY],
    figures: &[ACTIVE_LANES],
    fit: None,
};

/// The `simt.efficiency` experiment.
pub struct SimtEfficiency;

declare_experiment!(SimtEfficiency, INFO, run);

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(lane: u32, ballot: u32) -> Lane {
        Lane {
            lane,
            size: 4,
            subgroup: (0, 0),
            ballot: [ballot, 0, 0, 0],
        }
    }

    #[test]
    fn a_split_path_and_a_stray_lane_are_counted() {
        // k = 2 over lanes 0..4: paths {0, 2} and {1, 3}. Whole: one ballot per path. Then
        // path {1, 3} split in two, and lane 0's ballot holding lane 1, of the other path.
        let cases = [
            ([0b101, 0b101, 0b1010, 0b1010], (2, 2, 0), 2.0),
            ([0b011, 0b101, 0b0010, 0b1000], (4, 2, 1), 1.0),
        ];
        for (ballots, (instances, model, outside), active) in cases {
            let lanes: Vec<Lane> = [0, 2, 1, 3]
                .into_iter()
                .zip(ballots)
                .map(|(l, b)| lane(l, b))
                .collect();
            let c = tally(2, &lanes);
            assert_eq!(
                (c.instances, c.model_instances, c.outside),
                (instances, model, outside)
            );
            assert_eq!(c.active(), active);
        }
    }

    #[test]
    fn path_counts_stop_at_the_subgroup_size() {
        assert_eq!(path_counts(8), vec![1, 2, 3, 4, 8]);
        assert_eq!(path_counts(4), vec![1, 2, 3, 4]);
    }
}
