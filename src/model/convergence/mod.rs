//! The convergence scenarios' reference model: which record points each invocation reaches,
//! along which structured path, and what WGSL guarantees there.
//!
//! "Structured reconvergence" (seed 003): invocations of one subgroup are together at a point
//! when they reached it along the same path: the same branch of each `if`, the same case group of
//! each `switch`, the same loop iteration, the same call site. After a join the path is the
//! enclosing one again. WGSL guarantees less: a subgroup operation acts among invocations that
//! are active together, and those can only be invocations on the same path; whether all of them
//! are together (inside a branch, or again after the join) is not promised. So the checks split:
//! - guaranteed (`held` / `violated`): control flow reaches exactly the modelled points; a
//!   ballot holds only invocations on the caller's own path, the caller included; a value is the
//!   operation over the set the ballot shows; at entry the whole subgroup is active;
//! - not guaranteed (portability information): whether the set equals the structured one.

/// The scenarios, one WGSL entry point each in `shaders/convergence.wgsl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    IfElse,
    IfNoElse,
    NestedIf,
    SwitchCaseGroups,
    LoopTripCount,
    BreakContinue,
    EarlyReturn,
    FunctionCall,
    Elect,
    BroadcastFirst,
}

/// Where a record point sits, which decides what WGSL guarantees there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Shader entry: uniform control flow, the whole subgroup is active.
    Entry,
    /// Inside divergent control flow: only invocations on the same path may be together.
    Branch,
    /// Right after a join (the end of an `if`, `switch` or loop): the structured model says the
    /// paths reconverged; WGSL does not promise it.
    Join,
}

/// What an invocation records as its value at a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueOp {
    /// Its own local index.
    Id,
    /// `subgroupMin(local index)`.
    Min,
    /// `subgroupMax(local index)`.
    Max,
    /// `subgroupAdd(1u)`: how many invocations are active.
    Count,
    /// `subgroupBroadcastFirst(local index)`: the lowest active lane's index.
    BroadcastFirst,
    /// `subgroupElect()` as 0 or 1: 1 on the lowest active lane.
    Elect,
}

/// One record point of a scenario.
#[derive(Clone, Copy, Debug)]
pub struct PointSpec {
    /// Where it is, in words.
    pub label: &'static str,
    pub place: Place,
    pub op: ValueOp,
}

const fn point(label: &'static str, place: Place, op: ValueOp) -> PointSpec {
    PointSpec { label, place, op }
}

const ENTRY: PointSpec = point("entry", Place::Entry, ValueOp::Id);

/// A scenario's record points as a `&'static` list: [`ENTRY`], then one `(label, place, op)`
/// per point after it, numbered as in the shader.
macro_rules! points {
    ($(($label:expr, $place:expr, $op:expr)),* $(,)?) => {
        const { &[ENTRY, $(point($label, $place, $op)),*] }
    };
}

/// One invocation, as the model sees it.
#[derive(Clone, Copy, Debug)]
pub struct Invocation {
    /// `local_invocation_index`.
    pub id: u32,
    /// `subgroup_invocation_id`.
    pub lane: u32,
    /// The subgroup size.
    pub size: u32,
}

/// A point reached along a path; invocations with equal paths are structurally together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visit {
    pub point: u32,
    pub path: u32,
}

const fn visit(point: u32, path: u32) -> Visit {
    Visit { point, path }
}

impl Scenario {
    /// Every scenario, in run order.
    pub const ALL: [Scenario; 10] = [
        Scenario::IfElse,
        Scenario::IfNoElse,
        Scenario::NestedIf,
        Scenario::SwitchCaseGroups,
        Scenario::LoopTripCount,
        Scenario::BreakContinue,
        Scenario::EarlyReturn,
        Scenario::FunctionCall,
        Scenario::Elect,
        Scenario::BroadcastFirst,
    ];

    /// The WGSL entry point; the experiment id is `convergence.<entry>`.
    pub fn entry(self) -> &'static str {
        match self {
            Scenario::IfElse => "if_else",
            Scenario::IfNoElse => "if_no_else",
            Scenario::NestedIf => "nested_if",
            Scenario::SwitchCaseGroups => "switch_case_groups",
            Scenario::LoopTripCount => "loop_trip_count",
            Scenario::BreakContinue => "break_continue",
            Scenario::EarlyReturn => "early_return",
            Scenario::FunctionCall => "function_call",
            Scenario::Elect => "elect",
            Scenario::BroadcastFirst => "broadcast_first",
        }
    }

    /// The rule the scenario exercises, in one line, and its source.
    pub fn rule(self) -> (&'static str, &'static str) {
        match self {
            Scenario::IfElse => (
                "An if/else diverges when invocations take different branches; a subgroup op in \
                 a branch acts among that branch's invocations only; they reconverge at the join",
                "“Execution Divergence and Reconvergence” (if statements, the subgroupMin example)",
            ),
            Scenario::IfNoElse => (
                "An if without else diverges the invocations that skip it from those that run it",
                "“Execution Divergence and Reconvergence” (if statements, example 2)",
            ),
            Scenario::NestedIf => (
                "Nested ifs diverge level by level and reconverge at each join, innermost first",
                "“Execution Divergence and Reconvergence” (structured control flow)",
            ),
            Scenario::SwitchCaseGroups => (
                "A switch diverges per case group (`case 0, 2` is one group, `case 3, default` \
                 another) and reconverges when invocations exit the switch",
                "“Execution Divergence and Reconvergence” (switch statements)",
            ),
            Scenario::LoopTripCount => (
                "Invocations with more loop trips run the extra iterations alone; reconvergence \
                 is after every invocation has left the loop",
                "“Execution Divergence and Reconvergence” (loops); “Per-Lane Program Counters” (exited lanes may proceed)",
            ),
            Scenario::BreakContinue => (
                "`continue` drops an invocation from one iteration and `break` from the rest of \
                 the loop; the loop's invocations reconverge after it",
                "“Execution Divergence and Reconvergence” (loops)",
            ),
            Scenario::EarlyReturn => (
                "Invocations that returned early are not active in a later subgroup op",
                "“Execution Divergence and Reconvergence” (mutually convergent set); WGSL uniformity analysis",
            ),
            Scenario::FunctionCall => (
                "A function reached from two divergent call sites runs as two dynamic instances; \
                 their invocations are not one convergent set",
                "“Per-Lane Program Counters” (per-lane call stacks); “Execution Divergence and Reconvergence”",
            ),
            Scenario::Elect => (
                "subgroupElect() is true in exactly the lowest active invocation, also on a \
                 divergent path",
                "WGSL subgroupElect; “Execution Divergence and Reconvergence” (mutually convergent set)",
            ),
            Scenario::BroadcastFirst => (
                "subgroupBroadcastFirst on a divergent path returns the lowest active \
                 invocation's value among its own branch",
                "WGSL subgroupBroadcastFirst; “Execution Divergence and Reconvergence” (mutually convergent set)",
            ),
        }
    }

    /// The record points, indexed by their number in the shader.
    pub fn points(self) -> &'static [PointSpec] {
        use Place::{Branch, Join};
        use ValueOp::{BroadcastFirst, Count, Elect, Id, Max, Min};
        match self {
            Scenario::IfElse => points![
                ("then: subgroupMin", Branch, Min),
                ("then: subgroupMax", Branch, Max),
                ("else: subgroupMin", Branch, Min),
                ("else: subgroupMax", Branch, Max),
                ("after the if/else", Join, Count),
            ],
            Scenario::IfNoElse => points![
                ("inside the if", Branch, Count),
                ("after the if", Join, Count),
            ],
            Scenario::NestedIf => points![
                ("outer if", Branch, Count),
                ("inner if", Branch, Count),
                ("after the inner if", Join, Count),
                ("after the outer if", Join, Count),
            ],
            Scenario::SwitchCaseGroups => points![
                ("case 0, 2", Branch, Min),
                ("case 1", Branch, Min),
                ("case 3, default", Branch, Min),
                ("after the switch", Join, Count),
            ],
            Scenario::LoopTripCount => points![
                ("iteration 48 (all)", Branch, Count),
                ("iteration 49 (all)", Branch, Count),
                ("iteration 50 (odd ids only)", Branch, Count),
                ("after the loop", Join, Count),
            ],
            Scenario::BreakContinue => points![
                ("iteration 0", Branch, Count),
                ("iteration 1", Branch, Count),
                ("iteration 2", Branch, Count),
                ("iteration 3", Branch, Count),
                ("iteration 4", Branch, Count),
                ("iteration 5", Branch, Count),
                ("after the loop", Join, Count),
            ],
            Scenario::EarlyReturn => points![("after the early return", Join, Count)],
            Scenario::FunctionCall => points![
                ("in the function, per call site", Branch, Count),
                ("after the calls", Join, Count),
            ],
            Scenario::Elect => points![
                ("inside if subgroupElect()", Branch, Id),
                ("after the elect block", Join, Count),
                ("subgroupElect() on odd lanes", Branch, Elect),
                ("after the odd-lane branch", Join, Count),
            ],
            Scenario::BroadcastFirst => points![
                ("odd lanes: subgroupBroadcastFirst", Branch, BroadcastFirst),
                ("even lanes: subgroupBroadcastFirst", Branch, BroadcastFirst),
                ("after the if/else", Join, BroadcastFirst),
            ],
        }
    }

    /// The points `inv` reaches, in program order, with the structured path it reaches them on.
    /// Mirrors the entry point of the same name in `shaders/convergence.wgsl`.
    pub fn visits(self, inv: Invocation) -> Vec<Visit> {
        let Invocation { id, lane, size } = inv;
        let mut v = vec![visit(0, 0)];
        match self {
            Scenario::IfElse => {
                if id & 1 == 0 {
                    v.extend([visit(1, 1), visit(2, 1)]);
                } else {
                    v.extend([visit(3, 2), visit(4, 2)]);
                }
                v.push(visit(5, 0));
            }
            Scenario::IfNoElse => {
                if lane.is_multiple_of(3) {
                    v.push(visit(1, 1));
                }
                v.push(visit(2, 0));
            }
            Scenario::NestedIf => {
                if lane < size / 2 {
                    v.push(visit(1, 1));
                    if lane & 1 == 1 {
                        v.push(visit(2, 2));
                    }
                    v.push(visit(3, 1));
                }
                v.push(visit(4, 0));
            }
            Scenario::SwitchCaseGroups => {
                let (point, group) = match lane % 5 {
                    0 | 2 => (1, 1),
                    1 => (2, 2),
                    _ => (3, 3),
                };
                v.extend([visit(point, group), visit(4, 0)]);
            }
            Scenario::LoopTripCount => {
                let trips = 50 + (id & 1);
                v.extend((48..trips).map(|i| visit(1 + i - 48, 100 + i)));
                v.push(visit(4, 0));
            }
            Scenario::BreakContinue => {
                for i in 0..6 {
                    if i == lane % 4 {
                        continue;
                    }
                    v.push(visit(1 + i, 100 + i));
                    if i == 2 + lane % 3 {
                        break;
                    }
                }
                v.push(visit(7, 0));
            }
            Scenario::EarlyReturn => {
                if lane % 4 != 3 {
                    v.push(visit(1, 0));
                }
            }
            Scenario::FunctionCall => {
                match lane % 3 {
                    0 => v.push(visit(1, 1)),
                    1 => v.push(visit(1, 2)),
                    _ => {}
                }
                v.push(visit(2, 0));
            }
            Scenario::Elect => {
                // At entry the whole subgroup is active, so the lowest lane is lane 0.
                if lane == 0 {
                    v.push(visit(1, 1));
                }
                v.push(visit(2, 0));
                if lane & 1 == 1 {
                    v.push(visit(3, 2));
                }
                v.push(visit(4, 0));
            }
            Scenario::BroadcastFirst => {
                if lane & 1 == 1 {
                    v.push(visit(1, 1));
                } else {
                    v.push(visit(2, 2));
                }
                v.push(visit(3, 0));
            }
        }
        v
    }
}

/// The CPU reference of a point's value over a set of (lane, local index) pairs, in lane
/// order, for the invocation `me`.
pub fn expected_value(op: ValueOp, set: &[(u32, u32)], me: (u32, u32)) -> Option<u32> {
    let ids = set.iter().map(|&(_, id)| id);
    let first = set.iter().min_by_key(|&&(lane, _)| lane);
    match op {
        ValueOp::Id => Some(me.1),
        ValueOp::Min => ids.min(),
        ValueOp::Max => ids.max(),
        ValueOp::Count => u32::try_from(set.len()).ok(),
        ValueOp::BroadcastFirst => first.map(|&(_, id)| id),
        ValueOp::Elect => first.map(|&(lane, _)| u32::from(lane == me.0)),
    }
}

/// What one invocation recorded at one point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observed {
    /// The ballot: bit `l` set when lane `l` was active with it.
    pub ballot: u128,
    pub value: u32,
}

/// One invocation's records: `points[p]` is `None` where it never wrote point `p`.
#[derive(Clone, Debug)]
pub struct LaneObservation {
    pub id: u32,
    pub lane: u32,
    pub points: Vec<Option<Observed>>,
}

/// One subgroup's records.
#[derive(Clone, Debug)]
pub struct SubgroupObservation {
    /// The `subgroup_size` builtin it ran with.
    pub size: u32,
    /// Its invocations, in lane order.
    pub lanes: Vec<LaneObservation>,
}

/// Tallies for one point over every subgroup.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PointTally {
    /// Distinct structured sets at this point (one per path per subgroup).
    pub sets: usize,
    /// ... of which every member's ballot equalled the set: it ran as one.
    pub together: usize,
    /// Invocations that reached the point.
    pub lanes: usize,
    /// ... whose value equals the operation over the structured set.
    pub structured_values: usize,
}

/// A guarantee of structured control flow that [`assess`] checks on every lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guarantee {
    /// An invocation reaches exactly the points the model says it does.
    ControlFlow,
    /// A ballot holds its own lane and no lane on another path.
    OwnPath,
    /// A value is the operation over the ballot's set.
    OpValues,
    /// An entry ballot holds the whole subgroup.
    FullAtEntry,
}

impl Guarantee {
    /// Every guarantee, in report order (the index of [`Assessment::failures`]).
    pub const ALL: [Guarantee; 4] = [
        Guarantee::ControlFlow,
        Guarantee::OwnPath,
        Guarantee::OpValues,
        Guarantee::FullAtEntry,
    ];

    /// The verdict's stable key.
    pub fn key(self) -> &'static str {
        match self {
            Guarantee::ControlFlow => "control_flow",
            Guarantee::OwnPath => "own_path",
            Guarantee::OpValues => "op_values",
            Guarantee::FullAtEntry => "full_at_entry",
        }
    }

    /// The verdict's check, in one sentence.
    pub fn check(self) -> &'static str {
        match self {
            Guarantee::ControlFlow => "control flow reaches exactly the modelled record points",
            Guarantee::OwnPath => {
                "a ballot holds only invocations on the caller's own path (mutually convergent set)"
            }
            Guarantee::OpValues => {
                "each subgroup op's result is the op over the invocations its ballot shows"
            }
            Guarantee::FullAtEntry => {
                "at entry (uniform control flow) the whole subgroup is active"
            }
        }
    }
}

/// The checks of one scenario over every subgroup.
#[derive(Clone, Debug, Default)]
pub struct Assessment {
    /// Per [`Guarantee`], in [`Guarantee::ALL`] order: one line per failure.
    pub failures: [Vec<String>; 4],
    /// Per point, in point order.
    pub points: Vec<PointTally>,
    /// Subgroups and invocations checked.
    pub subgroups: usize,
    pub invocations: usize,
}

impl Assessment {
    /// The failures of one guarantee.
    pub fn failed(&self, guarantee: Guarantee) -> &[String] {
        &self.failures[guarantee as usize]
    }

    /// Whether every guarantee held.
    pub fn holds(&self) -> bool {
        self.failures.iter().all(Vec::is_empty)
    }

    fn fail(&mut self, guarantee: Guarantee, line: String) {
        self.failures[guarantee as usize].push(line);
    }
}

/// Checks one scenario's observations, subgroup by subgroup.
pub fn assess(scenario: Scenario, subgroups: &[SubgroupObservation]) -> Assessment {
    let specs = scenario.points();
    let mut out = Assessment {
        points: vec![PointTally::default(); specs.len()],
        subgroups: subgroups.len(),
        ..Assessment::default()
    };
    for (s, SubgroupObservation { size, lanes }) in subgroups.iter().enumerate() {
        let size = *size;
        out.invocations += lanes.len();
        if lanes.len() != size as usize {
            out.fail(
                Guarantee::FullAtEntry,
                format!(
                    "subgroup {s}: {} invocations, but subgroup_size is {size}",
                    lanes.len()
                ),
            );
        }
        let visits: Vec<Vec<Visit>> = lanes
            .iter()
            .map(|l| {
                scenario.visits(Invocation {
                    id: l.id,
                    lane: l.lane,
                    size,
                })
            })
            .collect();
        for (p, spec) in specs.iter().enumerate() {
            let p32 = p as u32;
            let path_of = |i: usize| visits[i].iter().find(|v| v.point == p32).map(|v| v.path);
            for (i, l) in lanes.iter().enumerate() {
                let observed = l.points.get(p).copied().flatten();
                let here = format!("subgroup {s}, lane {} (id {}), point {p}", l.lane, l.id);
                let Some(path) = path_of(i) else {
                    if observed.is_some() {
                        out.fail(
                            Guarantee::ControlFlow,
                            format!("{here}: reached, but the model says it does not"),
                        );
                    }
                    continue;
                };
                let Some(obs) = observed else {
                    out.fail(
                        Guarantee::ControlFlow,
                        format!("{here}: not reached, but the model says it is"),
                    );
                    continue;
                };
                // The structured set: lanes of this subgroup on the same path here.
                let structured: Vec<(u32, u32)> = (0..lanes.len())
                    .filter(|&j| path_of(j) == Some(path))
                    .map(|j| (lanes[j].lane, lanes[j].id))
                    .collect();
                let structured_mask = mask_of(structured.iter().map(|&(lane, _)| lane));
                let tally = &mut out.points[p];
                tally.lanes += 1;
                if expected_value(spec.op, &structured, (l.lane, l.id)) == Some(obs.value) {
                    tally.structured_values += 1;
                }
                if obs.ballot & lane_bit(l.lane) == 0 || obs.ballot & !structured_mask != 0 {
                    out.fail(
                        Guarantee::OwnPath,
                        format!(
                            "{here}: ballot {:#x}, but only {structured_mask:#x} are on its path",
                            obs.ballot
                        ),
                    );
                    continue;
                }
                let active: Vec<(u32, u32)> = structured
                    .iter()
                    .copied()
                    .filter(|&(lane, _)| obs.ballot & lane_bit(lane) != 0)
                    .collect();
                let expected = expected_value(spec.op, &active, (l.lane, l.id));
                if expected != Some(obs.value) {
                    out.fail(
                        Guarantee::OpValues,
                        format!(
                            "{here}: value {}, but {:?} over its ballot {:#x} is {}",
                            obs.value,
                            spec.op,
                            obs.ballot,
                            expected.map_or_else(|| "undefined".to_owned(), |v| v.to_string())
                        ),
                    );
                }
                if spec.place == Place::Entry && obs.ballot != mask_of(lanes.iter().map(|l| l.lane))
                {
                    out.fail(
                        Guarantee::FullAtEntry,
                        format!(
                            "{here}: entry ballot {:#x} lacks part of the subgroup",
                            obs.ballot
                        ),
                    );
                }
            }
            // Each structured set counts once, as together when all its members saw exactly it.
            let mut paths: Vec<u32> = (0..lanes.len()).filter_map(path_of).collect();
            paths.sort_unstable();
            paths.dedup();
            for path in paths {
                let members: Vec<usize> = (0..lanes.len())
                    .filter(|&j| path_of(j) == Some(path))
                    .collect();
                let mask = mask_of(members.iter().map(|&j| lanes[j].lane));
                let together = members.iter().all(|&j| {
                    lanes[j].points.get(p).copied().flatten().map(|o| o.ballot) == Some(mask)
                });
                out.points[p].sets += 1;
                out.points[p].together += usize::from(together);
            }
        }
    }
    out
}

fn lane_bit(lane: u32) -> u128 {
    1u128.checked_shl(lane).unwrap_or(0)
}

fn mask_of(lanes: impl Iterator<Item = u32>) -> u128 {
    lanes.fold(0, |m, lane| m | lane_bit(lane))
}

#[cfg(test)]
mod tests;
