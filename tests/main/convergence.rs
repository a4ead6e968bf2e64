//! The convergence scenarios on the default adapter (lavapipe in CI): no guarantee is violated,
//! the table is printed, and the if/else minimum is each branch's own, read from the lane
//! records by the test itself rather than through divlab's model.

use divlab::experiments::convergence::Convergence;
use divlab::experiments::{Experiment, Lab, RunConfig, run_experiment};
use divlab::model::convergence::Scenario;
use divlab::report::{ExperimentStatus, VerdictStatus, read_json};

use crate::util;
use crate::util::{divlab, path_in, run, temp_dir};

#[test]
fn no_scenario_violates_a_guarantee_and_bench_prints_the_table() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let json = path_in(&dir, "convergence.json");
    let mut cmd = divlab(dir.path());
    cmd.args(["--bench", "--only", "convergence.", "--json"])
        .arg(&json);
    let out = run(cmd);
    out.assert_code(0);
    assert!(
        out.stdout.contains("convergence scenario") && out.stdout.contains("verdict"),
        "no convergence table\n{out}"
    );
    let doc = read_json(&json).expect("the result file reads back");
    let ids: Vec<&str> = doc.experiments.iter().map(|e| e.id.as_str()).collect();
    let expected: Vec<&str> = Convergence::all().iter().map(|e| e.id()).collect();
    assert_eq!(ids, expected, "--only convergence ran every scenario");
    for e in &doc.experiments {
        let scenario = e.id.trim_start_matches("convergence.");
        assert_eq!(
            e.status,
            ExperimentStatus::Ok,
            "{}: {}",
            e.id,
            e.status_detail
        );
        let row = out
            .stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(scenario))
            .unwrap_or_else(|| panic!("no table row for {scenario}\n{out}"));
        assert!(row.contains(" held "), "{row}");
        for v in &e.verdicts {
            assert_ne!(
                v.status,
                VerdictStatus::Violated,
                "{}: {} ({})",
                e.id,
                v.check,
                v.detail
            );
        }
        let held = e
            .verdicts
            .iter()
            .filter(|v| v.status == VerdictStatus::Held)
            .count();
        assert_eq!(held, 4, "{}: four guaranteed checks", e.id);
        assert!(
            !e.lanes.is_empty(),
            "{}: lane records are in the file",
            e.id
        );
    }
}

/// Seed 003's example: in each branch of `if (id & 1) == 0`, subgroupMin(id) is the smallest id
/// that took that branch in the subgroup.
#[test]
fn then_and_else_min_is_each_branchs_own_minimum() {
    let _gpu = util::gpu_shared();
    let lab = Lab::new(util::gpu());
    let experiment = Convergence {
        scenario: Scenario::IfElse,
    };
    let result = run_experiment(&lab, &experiment, &RunConfig::default(), &|_| {});
    assert_eq!(
        result.status,
        ExperimentStatus::Ok,
        "{}",
        result.status_detail
    );
    // Points 1 and 3 are the then- and else-branch subgroupMin.
    for (point, parity) in [(1, 0), (3, 1)] {
        let records: Vec<_> = result.lanes.iter().filter(|r| r.point == point).collect();
        let sg = util::expected_subgroup_size() as usize;
        assert_eq!(
            records.len(),
            128 / sg,
            "one record per subgroup at point {point}"
        );
        for r in records {
            let branch_min = r
                .local_index
                .iter()
                .copied()
                .filter(|id| id & 1 == parity)
                .min()
                .expect("each subgroup has lanes in both branches");
            for (lane, &id) in r.local_index.iter().enumerate() {
                let reached = r.ballot[lane] != [0; 4];
                assert_eq!(
                    reached,
                    id & 1 == parity,
                    "lane {lane} (id {id}), point {point}"
                );
                if reached {
                    assert_eq!(
                        r.value[lane], branch_min,
                        "subgroup {}, id {id}: subgroupMin at point {point} is not the branch's own minimum",
                        r.subgroup
                    );
                }
            }
        }
    }
}
