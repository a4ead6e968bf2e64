//! `subgroup_ops.catalog`: every WGSL subgroup and quad builtin, in uniform control flow and
//! under split predicates, held against a CPU reference over the active set each lane observed.
//!
//! Reads from inactive or out-of-range lanes are indeterminate in WGSL. They are recorded as
//! portability information (what came back), never as failures.

use std::collections::BTreeMap;

use crate::Result;
use crate::experiments::RunContext;
use crate::gpu::{
    Dispatch, GpuContext, Kernel, RuntimeChecks, read_buffer, read_only_buffer, storage_buffer,
};
use crate::model::subgroup_ops::{
    BUILTINS, Expected, LaneView, Op, Split, classify_inactive, expected, lane_data,
};
use crate::report::{ExperimentInfo, ExperimentResult, LaneRecord, VerdictStatus};
use crate::shaders;
use crate::shaders::subgroup_ops::INVOCATIONS;
pub use crate::shaders::subgroup_ops::{
    MASK_WORDS, OpsParams, OpsRecord, WORKGROUP_SIZE, WORKGROUPS,
};

/// The catalog kernel. No loops; the checked default is fine.
pub const KERNEL: Kernel = Kernel::of(&shaders::SUBGROUP_OPS, "main", RuntimeChecks::Checked);

/// Seeds the random split's mask, so runs repeat.
pub const RANDOM_SEED: u64 = 0x5ee0_0003;

/// The `subgroup_ops.catalog` experiment.
pub struct SubgroupOps;

/// What `subgroup_ops.catalog` declares.
pub const INFO: ExperimentInfo = ExperimentInfo {
    id: "subgroup_ops.catalog",
    title: "Subgroup operation catalog",
    rule: "A subgroup operation acts among the active (mutually convergent) invocations only",
    source: "“Execution Divergence and Reconvergence”; WGSL: subgroup built-in functions",
    shaders: &[&shaders::SUBGROUP_OPS],
    figures: &[],
    fit: None,
};

declare_experiment!(SubgroupOps, INFO, run);

fn run(ctx: RunContext<'_>) -> Result<ExperimentResult> {
    let (lab, _, progress) = ctx.parts();
    let gpu = &lab.gpu;
    gpu.require_subgroups("the subgroup operation catalog")?;
    let mask = random_mask(RANDOM_SEED);
    let (pipeline, unsupported) = build_pipeline(gpu)?;
    progress(0.3);
    let records = dispatch(gpu, &pipeline, &mask)?;
    progress(0.8);
    let catalog = check(&records, &mask, &unsupported);
    let mut result = INFO.new_result();
    result.param("workgroup_size", WORKGROUP_SIZE);
    result.param("workgroups", WORKGROUPS);
    result.param("splits", Split::ALL.map(Split::name).to_vec());
    result.param("random_seed", RANDOM_SEED);
    let words: Vec<String> = mask.iter().map(|w| format!("{w:#010x}")).collect();
    result.param("random_mask", words);
    catalog.report(&mut result);
    result.lanes = lane_records(&records);
    progress(1.0);
    Ok(result)
}

/// The random split's mask: one bit per invocation of the dispatch.
pub fn random_mask(seed: u64) -> [u32; MASK_WORDS] {
    let mut rng = fastrand::Rng::with_seed(seed);
    std::array::from_fn(|_| rng.u32(..))
}

/// Runs every split, one dispatch each, and reads back all records (split-major).
fn dispatch(
    gpu: &GpuContext,
    pipeline: &wgpu::ComputePipeline,
    mask: &[u32; MASK_WORDS],
) -> Result<Vec<OpsRecord>> {
    let count = (Split::ALL.len() as u64) * u64::from(INVOCATIONS);
    let records = storage_buffer(
        gpu,
        "divlab.subgroup_ops.records",
        count * size_of::<OpsRecord>() as u64,
    );
    // One dispatch per split, all in one pass; each split writes its own slice of `records`.
    let dispatches: Vec<Dispatch> = (0..Split::ALL.len() as u32)
        .map(|split| {
            let params = OpsParams {
                split,
                pad: [0; 3],
                mask: *mask,
            };
            let params = read_only_buffer(gpu, "divlab.subgroup_ops.params", &params);
            Dispatch::new(
                gpu,
                "divlab.subgroup_ops",
                pipeline,
                &[&params, &records],
                WORKGROUPS,
            )
        })
        .collect();
    gpu.run_batch("divlab.subgroup_ops", &dispatches)?;
    read_buffer(gpu, "divlab.subgroup_ops", &records)
}

/// Lane records of the first workgroup, one per split (`point` = split number) and subgroup;
/// the value is `subgroupAdd`'s result, 0 on lanes that did not run the ops.
fn lane_records(records: &[OpsRecord]) -> Vec<LaneRecord> {
    let mut out = Vec::new();
    for (point, block) in (0u32..).zip(records.chunks(INVOCATIONS as usize)) {
        let first_workgroup = subgroups(block)
            .into_iter()
            .filter(|((workgroup, _), _)| *workgroup == 0);
        for (subgroup, (_, lanes)) in (0u32..).zip(first_workgroup) {
            out.push(LaneRecord {
                point,
                subgroup,
                local_index: lanes.iter().map(|r| r.local_index).collect(),
                ballot: lanes.iter().map(|r| r.active_set).collect(),
                value: lanes
                    .iter()
                    .map(|r| r.results[Op::Add as usize][0])
                    .collect(),
            });
        }
    }
    out
}

/// Builds the pipeline. Where the whole kernel is rejected, finds the builtins rejected on their
/// own, blanks their lines and builds the rest: one missing builtin must not lose the others.
fn build_pipeline(gpu: &GpuContext) -> Result<(wgpu::ComputePipeline, BTreeMap<Op, String>)> {
    let whole = match KERNEL.pipeline(gpu, KERNEL.source, &[]) {
        Ok(pipeline) => return Ok((pipeline, BTreeMap::new())),
        Err(e) => e,
    };
    let rejected = probe_builtins(KERNEL.source, |source| {
        KERNEL.pipeline(gpu, source, &[]).map(drop)
    });
    if rejected.is_empty() {
        return Err(whole);
    }
    let source = without_ops(KERNEL.source, |op| rejected.contains_key(&op));
    Ok((KERNEL.pipeline(gpu, &source, &[])?, rejected))
}

/// Compiles `source` with one builtin's line at a time and returns those rejected, with why.
pub fn probe_builtins(source: &str, compile: impl Fn(&str) -> Result<()>) -> BTreeMap<Op, String> {
    Op::ALL
        .into_iter()
        .filter_map(|op| {
            let alone = without_ops(source, |other| other != op);
            compile(&alone).err().map(|e| (op, e.to_string()))
        })
        .collect()
}

/// `source` with the result line (`out[OP_…] = …`) of every op in `drop` blanked. Line numbers
/// stay, so errors still point into the file.
pub fn without_ops(source: &str, drop: impl Fn(Op) -> bool) -> String {
    let prefixes: Vec<String> = Op::ALL
        .into_iter()
        .filter(|&op| drop(op))
        .map(|op| format!("out[{}]", op.names().1))
        .collect();
    source
        .lines()
        .map(|line| {
            let code = line.trim_start();
            if prefixes.iter().any(|p| code.starts_with(p.as_str())) {
                ""
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What one builtin showed across all splits.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Result components with a guaranteed value.
    pub checked: usize,
    /// Of those, how many differed from the CPU reference.
    pub mismatches: usize,
    /// Where the first mismatch was, expected vs got.
    pub first_mismatch: Option<String>,
    /// Indeterminate reads by source (an inactive lane, or out of range) and by what came back:
    /// how often, and the first, as an example.
    pub inactive: BTreeMap<(&'static str, &'static str), (usize, String)>,
}

/// The catalog's findings.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// Per builtin, at its [`Op`] index.
    pub tallies: Vec<Tally>,
    /// Builtins the adapter or naga rejected, with why. They are not checked.
    pub unsupported: BTreeMap<Op, String>,
    /// Lane records (lane × split) that ran the ops.
    pub lanes_checked: usize,
    /// Active-set records that broke a guarantee, and the first of them.
    pub active_set_violations: (usize, Option<String>),
    /// Subgroup × split pairs with some lane in the split, and those whose every lane saw the
    /// whole split as its active set.
    pub branch_groups: (usize, usize),
    /// The largest popcount of `subgroupBallot(true)` in the uniform split.
    pub observed_size: u32,
}

fn to_set(words: [u32; 4]) -> u128 {
    words
        .iter()
        .rev()
        .fold(0u128, |set, &w| set << 32 | u128::from(w))
}

fn bit(lane: u32) -> u128 {
    1u128.checked_shl(lane).unwrap_or(0)
}

/// Holds every record (split-major, as the kernel writes them) against the CPU model.
pub fn check(
    records: &[OpsRecord],
    mask: &[u32; MASK_WORDS],
    unsupported: &BTreeMap<Op, String>,
) -> Catalog {
    let mut catalog = Catalog {
        tallies: vec![Tally::default(); BUILTINS],
        unsupported: unsupported.clone(),
        ..Catalog::default()
    };
    for (split, block) in Split::ALL
        .into_iter()
        .zip(records.chunks(INVOCATIONS as usize))
    {
        for lanes in subgroups(block).values() {
            catalog.check_subgroup(split, lanes, mask);
        }
    }
    catalog
}

/// One split's records grouped by (workgroup, first local index of the subgroup), lanes in
/// `subgroup_invocation_id` order: no lane mapping assumed.
fn subgroups(block: &[OpsRecord]) -> BTreeMap<(u32, u32), Vec<&OpsRecord>> {
    let mut groups: BTreeMap<(u32, u32), Vec<&OpsRecord>> = BTreeMap::new();
    for r in block {
        groups
            .entry((r.workgroup, r.subgroup_first_index))
            .or_default()
            .push(r);
    }
    for lanes in groups.values_mut() {
        lanes.sort_by_key(|r| r.subgroup_invocation_id);
    }
    groups
}

impl Catalog {
    fn check_subgroup(&mut self, split: Split, lanes: &[&OpsRecord], mask: &[u32; MASK_WORDS]) {
        let size = lanes.first().map_or(0, |r| r.subgroup_size);
        let mut values = vec![0; size.min(128) as usize];
        for r in lanes {
            if let Some(v) = values.get_mut(r.subgroup_invocation_id as usize) {
                *v = lane_data(r.local_index, r.workgroup);
            }
        }
        self.check_active_sets(split, lanes, size, mask);
        for r in lanes.iter().filter(|r| r.executed == 1) {
            self.lanes_checked += 1;
            let view = LaneView {
                sid: r.subgroup_invocation_id,
                size,
                active: to_set(r.active_set),
                values: &values,
            };
            if split == Split::Uniform {
                self.observed_size = self.observed_size.max(view.active.count_ones());
            }
            for op in Op::ALL {
                if !self.unsupported.contains_key(&op) {
                    self.check_op(op, split, r, &view);
                }
            }
        }
    }

    fn check_op(&mut self, op: Op, split: Split, r: &OpsRecord, view: &LaneView) {
        let tally = &mut self.tallies[op as usize];
        for (c, (want, got)) in expected(op, view)
            .into_iter()
            .zip(r.results[op as usize])
            .enumerate()
        {
            match want {
                Expected::Value(want) => {
                    tally.checked += 1;
                    if got != want {
                        tally.mismatches += 1;
                        tally.first_mismatch.get_or_insert_with(|| {
                            format!(
                                "split {}, workgroup {}, subgroup at local index {}, lane {} \
                                 (local index {}), .{}: expected {want}, got {got} \
                                 (active set {:#x})",
                                split.name(),
                                r.workgroup,
                                r.subgroup_first_index,
                                r.subgroup_invocation_id,
                                r.local_index,
                                ['x', 'y', 'z', 'w'][c],
                                view.active
                            )
                        });
                    }
                }
                Expected::Inactive { source } => {
                    let from = if (0..i64::from(view.size)).contains(&source) {
                        "inactive lane"
                    } else {
                        "out of range"
                    };
                    let seen = classify_inactive(got, view, source);
                    let (count, example) = tally.inactive.entry((from, seen)).or_default();
                    *count += 1;
                    if example.is_empty() {
                        let holder = view.values.iter().position(|&v| v == got && got != 0);
                        *example = format!(
                            "e.g. {} lane {} .{} from lane {source}: {got}{}",
                            split.name(),
                            view.sid,
                            ['x', 'y', 'z', 'w'][c],
                            holder.map_or(String::new(), |h| format!(" = lane {h}'s"))
                        );
                    }
                }
                Expected::Unused => {}
            }
        }
    }

    /// Guaranteed: the lanes that ran the block are exactly the split's, and each one's
    /// `ballot(true)` names itself, only lanes of the split, and lanes that saw the same set.
    /// Not guaranteed: that the whole split ran the block together.
    fn check_active_sets(
        &mut self,
        split: Split,
        lanes: &[&OpsRecord],
        size: u32,
        mask: &[u32; MASK_WORDS],
    ) {
        let set_of = |keep: &dyn Fn(&OpsRecord) -> bool| {
            lanes
                .iter()
                .filter(|r| keep(r))
                .fold(0u128, |s, r| s | bit(r.subgroup_invocation_id))
        };
        let branch = set_of(&|r| {
            let global = r.workgroup * WORKGROUP_SIZE + r.local_index;
            split.holds(r.subgroup_invocation_id, size, global, mask)
        });
        let ran = set_of(&|r| r.executed == 1);
        let active_of = |lane: u32| {
            lanes
                .iter()
                .find(|r| r.subgroup_invocation_id == lane)
                .map(|r| to_set(r.active_set))
        };
        let mut problem = (ran != branch)
            .then(|| format!("lanes that ran the block {ran:#x}, lanes of the split {branch:#x}"));
        let mut whole = branch != 0;
        for r in lanes.iter().filter(|r| r.executed == 1) {
            let active = to_set(r.active_set);
            whole &= active == branch;
            let disagrees = (0..128u32)
                .filter(|&j| active & bit(j) != 0)
                .any(|j| active_of(j) != Some(active));
            let wrong = if active & bit(r.subgroup_invocation_id) == 0 {
                Some("does not name the lane itself")
            } else if active & !branch != 0 {
                Some("names lanes outside the split")
            } else if disagrees {
                Some("names lanes that saw another set")
            } else {
                None
            };
            if let Some(wrong) = wrong {
                problem.get_or_insert_with(|| {
                    format!(
                        "lane {} saw {active:#x}, which {wrong}",
                        r.subgroup_invocation_id
                    )
                });
            }
        }
        if let Some(problem) = problem {
            let (count, first) = &mut self.active_set_violations;
            *count += 1;
            first.get_or_insert_with(|| {
                let r = lanes[0];
                format!(
                    "split {}, workgroup {}, subgroup at local index {}: {problem}",
                    split.name(),
                    r.workgroup,
                    r.subgroup_first_index
                )
            });
        }
        if branch != 0 {
            self.branch_groups.0 += 1;
            self.branch_groups.1 += usize::from(whole);
        }
    }

    /// Writes metrics and verdicts: active sets first, then one per builtin, then the
    /// indeterminate reads.
    pub fn report(&self, result: &mut ExperimentResult) {
        let sum = |f: fn(&Tally) -> usize| self.tallies.iter().map(f).sum::<usize>();
        let inactive = |t: &Tally| t.inactive.values().map(|(n, _)| n).sum::<usize>();
        let supported = BUILTINS - self.unsupported.len();
        result.metric("builtins_checked", supported as f64);
        result.metric("unsupported_builtins", self.unsupported.len() as f64);
        result.metric("lanes_checked", self.lanes_checked as f64);
        result.metric("values_checked", sum(|t| t.checked) as f64);
        result.metric("mismatches", sum(|t| t.mismatches) as f64);
        result.metric("inactive_reads", sum(inactive) as f64);
        result.metric("observed_subgroup_size", f64::from(self.observed_size));
        let (violations, first) = &self.active_set_violations;
        result.verdict(
            "ballot_self",
            "ballot(true) names the lane itself and only split lanes that saw the same set",
            VerdictStatus::held_if(*violations == 0),
            match first {
                Some(first) => format!("{violations} subgroup-splits broke it; first: {first}"),
                None => format!(
                    "{} lanes over {} splits",
                    self.lanes_checked,
                    Split::ALL.len()
                ),
            },
        );
        let (groups, whole) = self.branch_groups;
        result.verdict(
            "split_together",
            "a split's lanes run the block together",
            VerdictStatus::NotGuaranteed,
            format!("observed: ballot(true) held the whole split in {whole}/{groups} subgroups"),
        );
        for (op, tally) in Op::ALL.into_iter().zip(&self.tallies) {
            let key = format!("matches_reference_{}", op.name());
            let check = format!(
                "{}: matches the CPU reference over the active set",
                op.name()
            );
            if let Some(reason) = self.unsupported.get(&op) {
                result.verdict(
                    key,
                    check,
                    VerdictStatus::NotGuaranteed,
                    format!("unsupported on this adapter, not checked: {reason}"),
                );
                continue;
            }
            let mut detail = match &tally.first_mismatch {
                Some(first) => format!(
                    "{} of {} values differ; first: {first}",
                    tally.mismatches, tally.checked
                ),
                None => format!("{} values matched", tally.checked),
            };
            if op == Op::Elect {
                detail.push_str(
                    " (naga 30 has no subgroupElect; divlab runs subgroupExclusiveAdd(1u) == 0u)",
                );
            }
            result.verdict(
                key,
                check,
                VerdictStatus::held_if(tally.mismatches == 0),
                detail,
            );
        }
        for (op, tally) in Op::ALL.into_iter().zip(&self.tallies) {
            if tally.inactive.is_empty() {
                continue;
            }
            let seen: Vec<String> = tally
                .inactive
                .iter()
                .map(|((from, what), (n, example))| format!("{from} -> {what} x{n} ({example})"))
                .collect();
            result.verdict(
                format!("inactive_reads_{}", op.name()),
                format!("{}: reads from inactive or out-of-range lanes", op.name()),
                VerdictStatus::NotGuaranteed,
                format!("observed {} reads: {}", inactive(tally), seen.join("; ")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::check_wgsl;

    fn module() -> naga::Module {
        check_wgsl(KERNEL.file(), KERNEL.source).unwrap_or_else(|e| panic!("{e}"))
    }

    fn wgsl_const(module: &naga::Module, name: &str) -> u32 {
        let (_, c) = module
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no const {name} in the shader"));
        match module.global_expressions[c.init] {
            naga::Expression::Literal(naga::Literal::U32(v)) => v,
            ref e => panic!("const {name} is {e:?}"),
        }
    }

    #[test]
    fn shader_agrees_with_rust() {
        // The structs, WORKGROUP_SIZE, BUILTINS and MASK_WORDS: the layout test in `shaders`.
        let m = module();
        for (i, op) in Op::ALL.into_iter().enumerate() {
            assert_eq!(op as usize, i, "{op:?} is out of order in Op::ALL");
            assert_eq!(wgsl_const(&m, op.names().1) as usize, i, "{op:?}");
        }
        for (i, split) in Split::ALL.into_iter().enumerate() {
            let name = format!("SPLIT_{}", split.name().to_uppercase());
            assert_eq!(wgsl_const(&m, &name) as usize, i, "{split:?}");
        }
    }

    #[test]
    fn probing_finds_the_one_rejected_builtin() {
        let naga_only = |source: &str| check_wgsl("probe.wgsl", source).map(drop);
        assert!(probe_builtins(KERNEL.source, naga_only).is_empty());
        let damaged = KERNEL
            .source
            .replace("subgroupShuffleXor(v, 3u)", "subgroupNoSuchThing(v, 3u)");
        let rejected = probe_builtins(&damaged, naga_only);
        assert_eq!(rejected.keys().collect::<Vec<_>>(), [&Op::ShuffleXor]);
        let rest = without_ops(&damaged, |op| rejected.contains_key(&op));
        assert_eq!(rest.lines().count(), KERNEL.source.lines().count());
        naga_only(&rest).unwrap_or_else(|e| panic!("{e}"));
    }
}
