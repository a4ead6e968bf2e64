//! `fuzz.reconvergence`: a small fixed batch of the reconvergence fuzzer, so result files carry
//! each device's pass rate per style for comparison. `divlab fuzz` runs large batches.

use crate::Result;
use crate::experiments::RunContext;
use crate::fuzz::{self, Campaign, Size, Style};
use crate::report::{ExperimentInfo, ExperimentResult, Family, Figure, VerdictStatus};

/// The fixed batch: seeds 0..SEEDS (QUICK_SEEDS with `--quick`), medium size, every style.
const SEEDS: u64 = 24;
const QUICK_SEEDS: u64 = 8;

/// The `fuzz.reconvergence` experiment.
pub struct ReconvergenceFuzz;

/// A style's pass rate, which decides that style's verdict.
const fn pass_rate(key: &'static str, label: &'static str, verdict: &'static str) -> Figure {
    Figure::new(key, label, 3, Some(verdict))
}

fn run(ctx: RunContext<'_>) -> Result<ExperimentResult> {
    let (lab, config, progress) = ctx.parts();
    let campaign = Campaign {
        start: 0,
        seeds: config
            .fuzz_seeds
            .unwrap_or(if config.quick { QUICK_SEEDS } else { SEEDS }),
        styles: Style::ALL.to_vec(),
        size: Size::Medium,
        out: None,
        shrink_attempts: 0,
    };
    let tallies = fuzz::run_campaign(&lab.gpu, &campaign, &|done, total| {
        progress(done as f64 / total as f64);
    })?;
    let mut result = INFO.new_result();
    result.param(
        "seeds",
        vec![campaign.start, campaign.start + campaign.seeds],
    );
    result.param("size", "medium");
    for t in &tallies {
        let name = t.style.name();
        result.metric(&format!("pass_rate_{name}"), t.pass_rate());
        result.metric(&format!("programs_{name}"), t.programs as f64);
        let failing: Vec<u64> = t.failures.iter().map(|&(seed, _)| seed).collect();
        result.param(&format!("failing_seeds_{name}"), failing.clone());
        result.verdict(
            name,
            format!("{name} style: ballots match the simulation (not guaranteed)"),
            VerdictStatus::NotGuaranteed,
            format!(
                "observed: {}/{} programs matched; failing seeds {failing:?} (reproduce with \
                 `divlab fuzz --start SEED --seeds 1 --style {name} --out DIR`)",
                t.passed, t.programs
            ),
        );
    }
    Ok(result)
}

/// What `fuzz.reconvergence` declares.
pub const INFO: ExperimentInfo = ExperimentInfo {
    id: "fuzz.reconvergence",
    family: Family::Fuzz,
    title: "Reconvergence fuzzer: random structured programs against maximal reconvergence",
    rule: "Under maximal reconvergence every ballot equals the simulated one; WGSL \
           guarantees none of it, so pass rates are portability information",
    source: "“Execution Divergence and Reconvergence”; the styles of Vulkan's reconvergence tests",
    shaders: &[],
    figures: &[
        pass_rate("pass_rate_maximal", "maximal", "maximal"),
        pass_rate("pass_rate_subgroup", "subgroup", "subgroup"),
        pass_rate("pass_rate_workgroup", "workgroup", "workgroup"),
    ],
    fit: None,
};

declare_experiment!(ReconvergenceFuzz, INFO, run);
