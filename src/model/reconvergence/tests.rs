//! Hand-written programs with hand-derived expectations. The layout is 8 invocations in two
//! subgroups of 4 (ids 0-3 and 4-7, lane = id % 4) unless a test says otherwise.

use super::*;
use crate::model::convergence::{Invocation, Scenario};

fn layout() -> Layout {
    Layout::linear(8, 4)
}

fn program(main: Vec<Stmt>) -> Program {
    Program {
        main,
        functions: vec![],
        lane_masks: vec![],
        id_masks: vec![],
    }
}

fn ids(list: &[usize]) -> u128 {
    list.iter().fold(0, |m, &i| m | 1 << i)
}

/// (point, ballot) per record of invocation `i`.
fn seq(p: &Program, i: usize) -> Vec<(u32, u128)> {
    simulate(p, &layout())[i]
        .iter()
        .map(|e| (e.point, e.ballot))
        .collect()
}

fn if_(cond: Cond, then: Vec<Stmt>, otherwise: Vec<Stmt>) -> Stmt {
    Stmt::If {
        cond,
        then,
        otherwise,
    }
}

/// `for i < 3 { ballot 1; if lane == 0 { break; } ballot 2; } ballot 3`: the simulation and the
/// static rules both read it.
fn lane_zero_breaks() -> Program {
    let mut p = program(vec![
        Stmt::For {
            bound: Bound::Uniform(3),
            body: vec![
                Stmt::Ballot(1),
                if_(Cond::LaneMask(0), vec![Stmt::Break], vec![]),
                Stmt::Ballot(2),
            ],
        },
        Stmt::Ballot(3),
    ]);
    p.lane_masks = vec![0b0001];
    p
}

const SG0: u128 = 0b1111;
const SG1: u128 = 0b1111_0000;

#[test]
fn straight_line_ballots_hold_the_whole_subgroup() {
    let p = program(vec![Stmt::Ballot(1), Stmt::Ballot(2)]);
    assert_eq!(seq(&p, 0), [(1, SG0), (2, SG0)]);
    assert_eq!(seq(&p, 6), [(1, SG1), (2, SG1)]);
    let e = &simulate(&p, &layout())[0][0];
    assert!(e.subgroup_uniform && e.workgroup_uniform);
}

#[test]
fn if_else_splits_by_lane_and_rejoins() {
    let mut p = program(vec![
        if_(
            Cond::LaneMask(0),
            vec![Stmt::Ballot(1)],
            vec![Stmt::Ballot(2)],
        ),
        Stmt::Ballot(3),
    ]);
    p.lane_masks = vec![0b0101];
    assert_eq!(seq(&p, 0), [(1, ids(&[0, 2])), (3, SG0)]);
    assert_eq!(seq(&p, 1), [(2, ids(&[1, 3])), (3, SG0)]);
    assert_eq!(seq(&p, 7), [(2, ids(&[5, 7])), (3, SG1)]);
}

#[test]
fn if_without_else_on_invocation_ids() {
    let mut p = program(vec![
        if_(Cond::IdMask(0), vec![Stmt::Ballot(1)], vec![]),
        Stmt::Ballot(2),
    ]);
    p.id_masks = vec![ids(&[0, 5])];
    assert_eq!(seq(&p, 0), [(1, ids(&[0])), (2, SG0)]);
    assert_eq!(seq(&p, 5), [(1, ids(&[5])), (2, SG1)]);
    assert_eq!(seq(&p, 1), [(2, SG0)]);
    let e = &simulate(&p, &layout())[0][0];
    assert!(!e.subgroup_uniform && !e.workgroup_uniform);
}

#[test]
fn a_uniform_false_condition_runs_only_the_else() {
    let p = program(vec![if_(
        Cond::Uniform(false),
        vec![Stmt::Ballot(1)],
        vec![Stmt::Ballot(2)],
    )]);
    for i in 0..8 {
        assert_eq!(seq(&p, i).len(), 1);
        assert_eq!(seq(&p, i)[0].0, 2);
    }
    assert!(simulate(&p, &layout())[3][0].workgroup_uniform);
}

#[test]
fn a_uniform_loop_repeats_its_ballot() {
    let p = program(vec![Stmt::For {
        bound: Bound::Uniform(2),
        body: vec![Stmt::Ballot(1)],
    }]);
    assert_eq!(seq(&p, 2), [(1, SG0), (1, SG0)]);
}

#[test]
fn lanes_with_more_trips_run_the_extra_iteration_alone() {
    // lane % 2 + 1 trips: lanes 1 and 3 run twice.
    let p = program(vec![
        Stmt::For {
            bound: Bound::Lane { modulus: 2 },
            body: vec![Stmt::Ballot(1)],
        },
        Stmt::Ballot(2),
    ]);
    assert_eq!(seq(&p, 0), [(1, SG0), (2, SG0)]);
    assert_eq!(seq(&p, 1), [(1, SG0), (1, ids(&[1, 3])), (2, SG0)]);
}

#[test]
fn break_leaves_the_loop_and_waits_at_its_end() {
    let p = lane_zero_breaks();
    assert_eq!(seq(&p, 0), [(1, SG0), (3, SG0)]);
    let rest = ids(&[1, 2, 3]);
    assert_eq!(
        seq(&p, 1),
        [
            (1, SG0),
            (2, rest),
            (1, rest),
            (2, rest),
            (1, rest),
            (2, rest),
            (3, SG0)
        ]
    );
}

#[test]
fn continue_skips_the_rest_of_one_iteration() {
    let mut p = program(vec![Stmt::For {
        bound: Bound::Uniform(2),
        body: vec![
            if_(Cond::LaneMask(0), vec![Stmt::Continue], vec![]),
            Stmt::Ballot(1),
        ],
    }]);
    p.lane_masks = vec![0b0010];
    let others = ids(&[0, 2, 3]);
    assert_eq!(seq(&p, 0), [(1, others), (1, others)]);
    assert_eq!(seq(&p, 1), []);
}

#[test]
fn conditions_may_depend_on_the_iteration() {
    let p = program(vec![Stmt::For {
        bound: Bound::Uniform(2),
        body: vec![if_(
            Cond::LaneAndIteration { modulus: 2 },
            vec![Stmt::Ballot(1)],
            vec![],
        )],
    }]);
    // i = 0: lanes 0 and 2; i = 1: lanes 1 and 3.
    assert_eq!(seq(&p, 0), [(1, ids(&[0, 2]))]);
    assert_eq!(seq(&p, 3), [(1, ids(&[1, 3]))]);
}

#[test]
fn a_switch_diverges_per_case_group() {
    let p = program(vec![
        Stmt::Switch {
            selector: Selector::Lane { modulus: 3 },
            cases: vec![
                (vec![0, 2], vec![Stmt::Ballot(1)]),
                (vec![1], vec![Stmt::Ballot(2)]),
            ],
            default: vec![],
        },
        Stmt::Ballot(3),
    ]);
    // lane % 3 = 0, 1, 2, 0.
    assert_eq!(seq(&p, 0), [(1, ids(&[0, 2, 3])), (3, SG0)]);
    assert_eq!(seq(&p, 1), [(2, ids(&[1])), (3, SG0)]);
}

#[test]
fn a_uniform_selector_with_no_case_goes_to_default() {
    let p = program(vec![Stmt::Switch {
        selector: Selector::Uniform(2),
        cases: vec![
            (vec![0], vec![Stmt::Ballot(1)]),
            (vec![1], vec![Stmt::Ballot(2)]),
        ],
        default: vec![Stmt::Ballot(3)],
    }]);
    assert_eq!(seq(&p, 4), [(3, SG1)]);
}

#[test]
fn two_call_sites_are_two_sets() {
    let mut p = program(vec![if_(
        Cond::LaneMask(0),
        vec![Stmt::Call(0)],
        vec![Stmt::Call(0)],
    )]);
    p.functions = vec![vec![Stmt::Ballot(1)]];
    p.lane_masks = vec![0b0011];
    assert_eq!(seq(&p, 0), [(1, ids(&[0, 1]))]);
    assert_eq!(seq(&p, 2), [(1, ids(&[2, 3]))]);
}

#[test]
fn return_in_a_function_returns_to_the_caller() {
    let mut p = program(vec![Stmt::Call(0), Stmt::Ballot(2)]);
    p.functions = vec![vec![
        if_(Cond::LaneMask(0), vec![Stmt::Return], vec![]),
        Stmt::Ballot(1),
    ]];
    p.lane_masks = vec![0b0001];
    assert_eq!(seq(&p, 0), [(2, SG0)]);
    assert_eq!(seq(&p, 1), [(1, ids(&[1, 2, 3])), (2, SG0)]);
}

#[test]
fn return_in_main_ends_the_invocation() {
    let mut p = program(vec![
        if_(Cond::LaneMask(0), vec![Stmt::Return], vec![]),
        Stmt::Ballot(1),
    ]);
    p.lane_masks = vec![0b1000];
    assert_eq!(seq(&p, 0), [(1, ids(&[0, 1, 2]))]);
    assert_eq!(seq(&p, 3), []);
}

#[test]
fn elect_picks_the_lowest_active_lane_of_each_subgroup() {
    let mut p = program(vec![
        if_(
            Cond::LaneMask(0),
            vec![Stmt::Elect {
                body: vec![Stmt::Ballot(1)],
            }],
            vec![],
        ),
        Stmt::Ballot(2),
    ]);
    p.lane_masks = vec![0b1100];
    assert_eq!(seq(&p, 2), [(1, ids(&[2])), (2, SG0)]);
    assert_eq!(seq(&p, 3), [(2, SG0)]);
    assert_eq!(seq(&p, 6), [(1, ids(&[6])), (2, SG1)]);
}

#[test]
fn an_elect_loop_retires_one_lane_per_iteration() {
    let p = program(vec![Stmt::ElectLoop {
        body: vec![Stmt::Ballot(1)],
    }]);
    assert_eq!(seq(&p, 0), [(1, SG0)]);
    assert_eq!(
        seq(&p, 3),
        [
            (1, SG0),
            (1, ids(&[1, 2, 3])),
            (1, ids(&[2, 3])),
            (1, ids(&[3]))
        ]
    );
}

#[test]
fn a_loop_in_a_switch_in_a_function() {
    let mut p = program(vec![Stmt::Call(0), Stmt::Ballot(3)]);
    p.functions = vec![vec![Stmt::Switch {
        selector: Selector::Lane { modulus: 2 },
        cases: vec![(
            vec![0],
            vec![Stmt::For {
                bound: Bound::Uniform(2),
                body: vec![
                    Stmt::Ballot(1),
                    if_(Cond::LaneMask(0), vec![Stmt::Break], vec![]),
                ],
            }],
        )],
        default: vec![Stmt::Ballot(2)],
    }]];
    p.lane_masks = vec![0b0100];
    assert_eq!(seq(&p, 0), [(1, ids(&[0, 2])), (1, ids(&[0])), (3, SG0)]);
    assert_eq!(seq(&p, 2), [(1, ids(&[0, 2])), (3, SG0)]);
    assert_eq!(seq(&p, 1), [(2, ids(&[1, 3])), (3, SG0)]);
}

#[test]
fn nested_loops_keep_their_own_counters() {
    // The inner condition reads the inner counter j: (lane + j) % 2 == 0.
    let p = program(vec![Stmt::For {
        bound: Bound::Uniform(2),
        body: vec![Stmt::For {
            bound: Bound::Uniform(2),
            body: vec![if_(
                Cond::LaneAndIteration { modulus: 2 },
                vec![Stmt::Ballot(1)],
                vec![],
            )],
        }],
    }]);
    // Lane 0 records at j = 0 in both outer iterations.
    assert_eq!(seq(&p, 0), [(1, ids(&[0, 2])), (1, ids(&[0, 2]))]);
}

fn uniform_at(p: &Program, point: u32) -> (bool, bool) {
    let s = uniform_points(p)[&point];
    (s.subgroup, s.workgroup)
}

#[test]
fn static_uniformity_follows_the_wgsl_rules() {
    let lane_loop = program(vec![
        Stmt::Ballot(1),
        Stmt::For {
            bound: Bound::Lane { modulus: 2 },
            body: vec![Stmt::Ballot(2)],
        },
        Stmt::Ballot(3),
    ]);
    assert_eq!(uniform_at(&lane_loop, 1), (true, true));
    assert_eq!(uniform_at(&lane_loop, 2), (false, false));
    assert_eq!(
        uniform_at(&lane_loop, 3),
        (false, false),
        "after a lane-bound loop"
    );

    // A non-uniform break taints the rest of the body, every iteration, and what follows.
    let breaking = lane_zero_breaks();
    for point in 1..=3 {
        assert_eq!(
            uniform_at(&breaking, point),
            (false, false),
            "point {point}"
        );
    }

    // An if that only falls through leaves control flow as it was.
    let mut plain_if = program(vec![
        if_(Cond::LaneMask(0), vec![Stmt::Ballot(1)], vec![]),
        Stmt::Ballot(2),
    ]);
    plain_if.lane_masks = vec![1];
    assert_eq!(uniform_at(&plain_if, 1), (false, false));
    assert_eq!(uniform_at(&plain_if, 2), (true, true));

    // A per-subgroup condition is subgroup-uniform only.
    let mut per_subgroup = program(vec![if_(
        Cond::SubgroupMask(0),
        vec![Stmt::Ballot(1)],
        vec![],
    )]);
    per_subgroup.id_masks = vec![1];
    assert_eq!(uniform_at(&per_subgroup, 1), (true, false));

    // A function is as uniform as its least uniform call site; a non-uniform return in it
    // makes the caller non-uniform after the call.
    let mut calls = program(vec![
        Stmt::Call(0),
        if_(Cond::LaneMask(0), vec![Stmt::Call(0)], vec![]),
        Stmt::Ballot(2),
        Stmt::Call(1),
        Stmt::Ballot(3),
    ]);
    calls.functions = vec![
        vec![Stmt::Ballot(1)],
        vec![if_(Cond::LaneMask(0), vec![Stmt::Return], vec![])],
    ];
    calls.lane_masks = vec![1];
    assert_eq!(uniform_at(&calls, 1), (false, false));
    assert_eq!(uniform_at(&calls, 2), (true, true));
    assert_eq!(uniform_at(&calls, 3), (false, false));
}

#[test]
fn subgroup_masks_select_whole_subgroups() {
    let mut p = program(vec![if_(
        Cond::SubgroupMask(0),
        vec![Stmt::Ballot(1)],
        vec![],
    )]);
    // Bit 4 is subgroup 1's lane 0.
    p.id_masks = vec![1 << 4];
    assert_eq!(seq(&p, 0), []);
    assert_eq!(seq(&p, 5), [(1, SG1)]);
    let e = simulate(&p, &layout())[5][0];
    assert!(e.subgroup_uniform && !e.workgroup_uniform);
}

/// The convergence scenarios, written as programs, give the structured sets their own
/// model gives: one rule, two descriptions.
#[test]
fn agrees_with_the_convergence_scenarios() {
    let layout = Layout::linear(128, 8);
    let parity = (0..128)
        .filter(|i| i % 2 == 1)
        .fold(0u128, |m, i| m | 1 << i);
    let if_else = Program {
        main: vec![
            Stmt::Ballot(0),
            if_(
                Cond::IdMask(0),
                vec![Stmt::Ballot(3), Stmt::Ballot(4)],
                vec![Stmt::Ballot(1), Stmt::Ballot(2)],
            ),
            Stmt::Ballot(5),
        ],
        functions: vec![],
        lane_masks: vec![],
        id_masks: vec![parity],
    };
    let switch = Program {
        main: vec![
            Stmt::Ballot(0),
            Stmt::Switch {
                selector: Selector::Lane { modulus: 5 },
                cases: vec![
                    (vec![0, 2], vec![Stmt::Ballot(1)]),
                    (vec![1], vec![Stmt::Ballot(2)]),
                ],
                default: vec![Stmt::Ballot(3)],
            },
            Stmt::Ballot(4),
        ],
        functions: vec![],
        lane_masks: vec![],
        id_masks: vec![],
    };
    for (scenario, program) in [
        (Scenario::IfElse, if_else),
        (Scenario::SwitchCaseGroups, switch),
    ] {
        let sim = simulate(&program, &layout);
        let visits: Vec<_> = (0..128u32)
            .map(|id| {
                scenario.visits(Invocation {
                    id,
                    lane: id % 8,
                    size: 8,
                })
            })
            .collect();
        for i in 0..128 {
            let points: Vec<u32> = sim[i].iter().map(|e| e.point).collect();
            let expected: Vec<u32> = visits[i].iter().map(|v| v.point).collect();
            assert_eq!(points, expected, "{scenario:?}, invocation {i}");
            for (e, v) in sim[i].iter().zip(&visits[i]) {
                let together = (0..128)
                    .filter(|&j| j / 8 == i / 8 && visits[j].contains(v))
                    .fold(0u128, |m, j| m | 1 << j);
                assert_eq!(
                    e.ballot, together,
                    "{scenario:?}, invocation {i}, point {}",
                    e.point
                );
            }
        }
    }
}
