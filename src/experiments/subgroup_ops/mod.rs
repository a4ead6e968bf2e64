//! `subgroup_ops.catalog`: every WGSL subgroup and quad builtin, in uniform control flow and
//! under split predicates, held against a CPU reference over the active set each lane observed.
//!
//! Reads from inactive or out-of-range lanes are indeterminate in WGSL. They are recorded as
//! portability information (what came back), never as failures.

use crate::Result;
use crate::experiments::RunContext;
use crate::gpu::{
    Dispatch, GpuContext, Kernel, RuntimeChecks, read_buffer, read_only_buffer, storage_buffer,
};
use crate::model::subgroup_ops::{Op, Split};
use crate::report::{ExperimentInfo, ExperimentResult, Family, LaneRecord};
use crate::shaders;
use crate::shaders::subgroup_ops::INVOCATIONS;
pub use crate::shaders::subgroup_ops::{
    MASK_WORDS, OpsParams, OpsRecord, WORKGROUP_SIZE, WORKGROUPS,
};

mod catalog;
mod probe;

use catalog::subgroups;
pub use catalog::{Catalog, Tally, check};
use probe::build_pipeline;
pub use probe::{probe_builtins, without_ops};

/// The catalog kernel. No loops; the checked default is fine.
pub const KERNEL: Kernel = Kernel::of(&shaders::SUBGROUP_OPS, "main", RuntimeChecks::Checked);

/// Seeds the random split's mask, so runs repeat.
pub const RANDOM_SEED: u64 = 0x5ee0_0003;

/// The `subgroup_ops.catalog` experiment.
pub struct SubgroupOps;

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

/// What `subgroup_ops.catalog` declares.
pub const INFO: ExperimentInfo = ExperimentInfo {
    id: "subgroup_ops.catalog",
    family: Family::SubgroupOps,
    title: "Subgroup operation catalog",
    rule: "A subgroup operation acts among the active (mutually convergent) invocations only",
    source: "“Execution Divergence and Reconvergence”; WGSL: subgroup built-in functions",
    shaders: &[&shaders::SUBGROUP_OPS],
    figures: &[],
    fit: None,
};

declare_experiment!(SubgroupOps, INFO, run);

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
