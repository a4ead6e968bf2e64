//! `simt.efficiency` on the default adapter (lavapipe in CI): every path's ballot stays on its
//! path, and each path instance holds the lanes the SIMT model says, counted here by hand.

use divlab::experiments::simt_efficiency::SimtEfficiency;
use divlab::experiments::{Lab, RunConfig, run_experiment};
use divlab::report::{ExperimentStatus, VerdictStatus};

use crate::util;

#[test]
fn each_path_runs_once_per_subgroup_with_all_its_lanes() {
    let _gpu = util::gpu_shared();
    let lab = Lab::new(util::gpu());
    let result = run_experiment(&lab, &SimtEfficiency, &RunConfig::default(), &|_| {});
    assert_eq!(
        result.status,
        ExperimentStatus::Ok,
        "{}",
        result.status_detail
    );
    let sg = util::expected_subgroup_size();
    // Lanes 0..SG take path lane % k. With SG = 8: k = 3 gives paths {0, 3, 6}, {1, 4, 7} and
    // {2, 5}, so 8 lanes over 3 instances; k = 2, two of 4; k = SG, SG of 1. Every subgroup is
    // whole (64-lane workgroups), so the mean over subgroups is the same.
    let by_hand = |k: u32| f64::from(sg) / f64::from(k.min(sg));
    for k in [1, 2, 3, 4, 8].into_iter().filter(|&k| k <= sg) {
        let active = result.metrics[&format!("active_lanes_k{k}")];
        assert!(
            (active - by_hand(k)).abs() < 1e-9,
            "k = {k}: {active} active lanes per path, expected {}",
            by_hand(k)
        );
    }
    assert!((result.metrics["active_lanes_at_sg"] - 1.0).abs() < 1e-9);
    let status = |key: &str| {
        result
            .verdicts
            .iter()
            .find(|v| v.key == key)
            .unwrap_or_else(|| panic!("no verdict {key}"))
            .status
    };
    assert_eq!(status("ballot_within_path"), VerdictStatus::Held);
    // Lavapipe masks each path's lanes and runs every path once (DESIGN.md, "Observed on
    // lavapipe"): the SIMT model holds there.
    assert_eq!(status("simt_efficiency"), VerdictStatus::Consistent);
    // One lane grid point per k, each subgroup's lanes on their paths.
    assert!(
        result
            .lanes
            .iter()
            .any(|l| l.point == 2 && l.value[..3] == [0, 1, 2])
    );
}
