//! The subgroup-operation catalog on the default adapter (lavapipe in CI): every subgroup and
//! quad builtin matches the CPU reference over the observed active set, in every split.

use divlab::experiments::subgroup_ops::SubgroupOps;
use divlab::experiments::{Lab, RunConfig, run_experiment};
use divlab::report::{ExperimentStatus, VerdictStatus};

use crate::util;

/// Every WGSL subgroup and quad builtin, written out here so a builtin dropped from the
/// experiment's own list fails the test.
const BUILTINS: [&str; 25] = [
    "subgroupAdd",
    "subgroupMul",
    "subgroupMin",
    "subgroupMax",
    "subgroupAnd",
    "subgroupOr",
    "subgroupXor",
    "subgroupExclusiveAdd",
    "subgroupExclusiveMul",
    "subgroupInclusiveAdd",
    "subgroupInclusiveMul",
    "subgroupAll",
    "subgroupAny",
    "subgroupBallot",
    "subgroupBroadcast",
    "subgroupBroadcastFirst",
    "subgroupElect",
    "subgroupShuffle",
    "subgroupShuffleXor",
    "subgroupShuffleUp",
    "subgroupShuffleDown",
    "quadBroadcast",
    "quadSwapX",
    "quadSwapY",
    "quadSwapDiagonal",
];

#[test]
fn every_builtin_matches_the_reference_in_every_split() {
    let _gpu = util::gpu_shared();
    let lab = Lab::new(util::gpu());
    let result = run_experiment(&lab, &SubgroupOps, &RunConfig::default(), &|_| {});
    let verdicts: String = result
        .verdicts
        .iter()
        .map(|v| format!("  [{}] {}: {}\n", v.status.as_str(), v.check, v.detail))
        .collect();
    let summary = format!(
        "{} on `{}`: {:?} {}\nmetrics: {:?}\nverdicts:\n{verdicts}",
        result.id, lab.gpu.info.name, result.status, result.status_detail, result.metrics
    );
    assert_eq!(result.status, ExperimentStatus::Ok, "{summary}");
    assert!(
        !result.has_violation(),
        "a guarantee was violated\n{summary}"
    );
    for name in BUILTINS {
        let held = result
            .verdicts
            .iter()
            .any(|v| v.check.split(':').next() == Some(name) && v.status == VerdictStatus::Held);
        assert!(held, "no held verdict for {name}\n{summary}");
    }
    let metric = |name: &str| result.metrics.get(name).copied().unwrap_or(f64::NAN);
    assert_eq!(metric("builtins_checked"), 25.0, "{summary}");
    assert_eq!(
        metric("observed_subgroup_size"),
        f64::from(util::expected_subgroup_size()),
        "set DIVLAB_EXPECT_SUBGROUP_SIZE if this device differs from lavapipe's 8\n{summary}"
    );
    // The splits diverge, so some shuffles and quad swaps read inactive lanes.
    assert!(metric("inactive_reads") > 0.0, "{summary}");
    assert!(!result.lanes.is_empty(), "no lane records\n{summary}");
}
