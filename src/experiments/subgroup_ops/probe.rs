//! Which subgroup builtins this adapter compiles: a missing one is blanked, not fatal.

use std::collections::BTreeMap;

use super::KERNEL;
use crate::Result;
use crate::gpu::GpuContext;
use crate::model::subgroup_ops::Op;

/// Builds the pipeline. Where the whole kernel is rejected, finds the builtins rejected on their
/// own, blanks their lines and builds the rest: one missing builtin must not lose the others.
pub(super) fn build_pipeline(
    gpu: &GpuContext,
) -> Result<(wgpu::ComputePipeline, BTreeMap<Op, String>)> {
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
