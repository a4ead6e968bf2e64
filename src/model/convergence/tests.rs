//! The assessment against hand-built observations of a structured device and of broken ones.

use super::*;

/// What a structured-reconvergence device records: every set exactly as the model says.
fn structured_device(scenario: Scenario, size: u32) -> SubgroupObservation {
    let invs: Vec<Invocation> = (0..size)
        .map(|lane| Invocation {
            id: 100 + lane,
            lane,
            size,
        })
        .collect();
    let visits: Vec<Vec<Visit>> = invs.iter().map(|&i| scenario.visits(i)).collect();
    let specs = scenario.points();
    let lanes = invs
        .iter()
        .enumerate()
        .map(|(i, inv)| LaneObservation {
            id: inv.id,
            lane: inv.lane,
            points: (0..specs.len() as u32)
                .map(|p| {
                    let path = visits[i].iter().find(|v| v.point == p)?.path;
                    let set: Vec<(u32, u32)> = invs
                        .iter()
                        .zip(&visits)
                        .filter(|(_, v)| v.contains(&visit(p, path)))
                        .map(|(inv, _)| (inv.lane, inv.id))
                        .collect();
                    Some(Observed {
                        ballot: mask_of(set.iter().map(|&(lane, _)| lane)),
                        value: expected_value(specs[p as usize].op, &set, (inv.lane, inv.id))?,
                    })
                })
                .collect(),
        })
        .collect();
    SubgroupObservation { size, lanes }
}

#[test]
fn a_structured_device_passes_every_scenario_at_every_size() {
    for size in [4, 8, 32, 64, 128] {
        for scenario in Scenario::ALL {
            let a = assess(scenario, &[structured_device(scenario, size)]);
            assert!(a.holds(), "{scenario:?} at {size}: {a:#?}");
            for (p, t) in a.points.iter().enumerate() {
                assert_eq!(t.together, t.sets, "{scenario:?} point {p}");
                assert_eq!(t.structured_values, t.lanes, "{scenario:?} point {p}");
            }
        }
    }
}

#[test]
fn a_ballot_with_the_other_branch_is_a_violation() {
    let mut sg = structured_device(Scenario::IfElse, 8);
    let lanes = &mut sg.lanes;
    // Lane 0 (then-branch) sees lane 1 (else-branch) active with it, and a min to match.
    let obs = lanes[0].points[1].as_mut().unwrap();
    obs.ballot |= 0b10;
    obs.value = 100;
    let a = assess(Scenario::IfElse, &[sg]);
    assert_eq!(a.failed(Guarantee::OwnPath).len(), 1, "{a:#?}");
}

#[test]
fn a_wrong_min_and_a_missed_point_are_reported() {
    let mut sg = structured_device(Scenario::IfElse, 8);
    let lanes = &mut sg.lanes;
    lanes[2].points[1].as_mut().unwrap().value = 0;
    lanes[3].points[5] = None;
    let a = assess(Scenario::IfElse, &[sg]);
    assert_eq!(a.failed(Guarantee::OpValues).len(), 1, "{a:#?}");
    assert_eq!(a.failed(Guarantee::ControlFlow).len(), 1, "{a:#?}");
}

#[test]
fn a_split_branch_is_not_together_but_not_a_violation() {
    // Even lanes of the then-branch run as two sets: allowed, but not structured.
    let mut sg = structured_device(Scenario::IfElse, 8);
    let lanes = &mut sg.lanes;
    for lane in [0usize, 2] {
        let obs = lanes[lane].points[1].as_mut().unwrap();
        obs.ballot = 0b101;
        obs.value = 100;
    }
    for lane in [4usize, 6] {
        let obs = lanes[lane].points[1].as_mut().unwrap();
        obs.ballot = 0b101_0000;
        obs.value = 104;
    }
    let a = assess(Scenario::IfElse, &[sg]);
    assert!(
        a.failed(Guarantee::OwnPath).is_empty() && a.failed(Guarantee::OpValues).is_empty(),
        "{a:#?}"
    );
    assert_eq!((a.points[1].together, a.points[1].sets), (0, 1));
    assert_eq!(
        a.points[1].structured_values, 2,
        "lanes 0 and 2 saw the branch minimum"
    );
}

#[test]
fn loop_and_break_paths_follow_the_shader() {
    let inv = |id, lane| Invocation { id, lane, size: 8 };
    let points = |s: Scenario, i| s.visits(i).iter().map(|v| v.point).collect::<Vec<_>>();
    assert_eq!(points(Scenario::LoopTripCount, inv(2, 2)), [0, 1, 2, 4]);
    assert_eq!(points(Scenario::LoopTripCount, inv(3, 3)), [0, 1, 2, 3, 4]);
    // Lane 1 skips iteration 1 and breaks after iteration 3.
    assert_eq!(points(Scenario::BreakContinue, inv(1, 1)), [0, 1, 3, 4, 7]);
}
