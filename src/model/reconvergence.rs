//! Structured programs and their simulation under maximal reconvergence: the reference the
//! reconvergence fuzzer holds GPUs against.
//!
//! This extends the convergence scenarios' model (`model::convergence`) from fixed scenarios to
//! any program tree: the same structured rule (seed 003: invocations are together when they
//! reached a point along the same path; they reconverge at the end of every `if`, `switch`,
//! loop and call), computed by running the whole workgroup with an active mask. A ballot's
//! expected value is the mask restricted to the invocation's subgroup.
//!
//! Every loop is bounded by construction: `for` loops by a small constant or per-lane bound,
//! elect loops because each iteration retires at least one invocation per subgroup (and by a
//! guard at the workgroup size besides).

use std::collections::BTreeMap;

/// A program: `main`'s body and the functions it may call. A function only calls functions
/// with a higher index, so there is no recursion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub main: Vec<Stmt>,
    pub functions: Vec<Vec<Stmt>>,
    /// Lane masks (over `subgroup_invocation_id`) that conditions refer to.
    pub lane_masks: Vec<u128>,
    /// Invocation masks (over `local_invocation_index`) that conditions refer to.
    pub id_masks: Vec<u128>,
}

/// A boolean condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// The same value for every invocation (read from a buffer, so not folded away).
    Uniform(bool),
    /// Bit `subgroup_invocation_id` of `lane_masks[i]`.
    LaneMask(usize),
    /// Bit `local_invocation_index` of `id_masks[i]`.
    IdMask(usize),
    /// `(subgroup_invocation_id + i) % modulus == 0`, with `i` the innermost `for` counter.
    LaneAndIteration { modulus: u32 },
    /// Bit `s` of `id_masks[i]`, with `s` the local index of the subgroup's lane 0: the same
    /// for a whole subgroup, different between subgroups.
    SubgroupMask(usize),
}

/// A `switch` selector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selector {
    /// The same value for every invocation.
    Uniform(u32),
    /// `subgroup_invocation_id % modulus`.
    Lane { modulus: u32 },
    /// `local_invocation_index % modulus`.
    Id { modulus: u32 },
}

/// A `for` loop's bound: `for (var i = 0u; i < bound; i++)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// A constant trip count.
    Uniform(u32),
    /// `subgroup_invocation_id % modulus + 1` trips.
    Lane { modulus: u32 },
}

/// One statement. `Break` and `Continue` appear only inside loops (not directly in a `switch`
/// case, where WGSL's `break` would leave the switch), `Return` anywhere, and each of the three
/// only as the last statement of its block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// A record point: `subgroupBallot(true)` stored with the point's number.
    Ballot(u32),
    If {
        cond: Cond,
        then: Vec<Stmt>,
        otherwise: Vec<Stmt>,
    },
    For {
        bound: Bound,
        body: Vec<Stmt>,
    },
    /// `loop { body; if subgroupElect() { break; } }`: one invocation per subgroup leaves per
    /// iteration.
    ElectLoop {
        body: Vec<Stmt>,
    },
    Switch {
        selector: Selector,
        /// Case groups: the selector values of each, and its body. Values not listed go to
        /// `default`.
        cases: Vec<(Vec<u32>, Vec<Stmt>)>,
        default: Vec<Stmt>,
    },
    /// `if subgroupElect() { body }`.
    Elect {
        body: Vec<Stmt>,
    },
    Call(usize),
    Break,
    Continue,
    Return,
}

/// How the invocations of the workgroup map to subgroups and lanes (observed on the device).
#[derive(Clone, Debug)]
pub struct Layout {
    /// `subgroup_invocation_id` of each local index.
    pub lane: Vec<u32>,
    /// The subgroup (an index into `subgroups`) of each local index.
    pub subgroup: Vec<usize>,
    /// Each subgroup's invocations as a mask over local indices.
    pub subgroups: Vec<u128>,
}

impl Layout {
    /// Local index i is lane i % size of subgroup i / size: the common mapping, for tests.
    pub fn linear(invocations: u32, size: u32) -> Self {
        let lane = (0..invocations).map(|i| i % size).collect();
        let subgroup = (0..invocations).map(|i| (i / size) as usize).collect();
        let subgroups = (0..invocations.div_ceil(size))
            .map(|s| (s * size..((s + 1) * size).min(invocations)).fold(0u128, |m, i| m | 1 << i))
            .collect();
        Self {
            lane,
            subgroup,
            subgroups,
        }
    }

    /// The number of invocations.
    pub fn invocations(&self) -> usize {
        self.lane.len()
    }

    fn all(&self) -> u128 {
        mask_below(self.invocations())
    }
}

/// One ballot an invocation is expected to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpectedBallot {
    pub point: u32,
    /// Over local indices: the invocation's subgroup members active with it.
    pub ballot: u128,
    /// Taken in subgroup-uniform control flow by WGSL's static rules, with the whole subgroup
    /// active: the `subgroup` style checks these.
    pub subgroup_uniform: bool,
    /// Taken in workgroup-uniform control flow, with the whole workgroup active: the
    /// `workgroup` style checks these.
    pub workgroup_uniform: bool,
}

/// Each invocation's expected records, in order, under maximal reconvergence.
pub fn simulate(program: &Program, layout: &Layout) -> Vec<Vec<ExpectedBallot>> {
    let mut sim = Simulator {
        program,
        layout,
        uniform: uniform_points(program),
        records: vec![Vec::new(); layout.invocations()],
        loops: Vec::new(),
        returned: Vec::new(),
        counters: Vec::new(),
    };
    sim.returned.push(0);
    sim.block(&program.main, layout.all());
    sim.records
}

/// What a loop collects while its body runs: invocations that left by `break`, and those that
/// skipped to the next iteration by `continue`.
#[derive(Default)]
struct LoopExits {
    broke: u128,
    continued: u128,
}

struct Simulator<'a> {
    program: &'a Program,
    layout: &'a Layout,
    /// Each point's static uniformity.
    uniform: BTreeMap<u32, Scopes>,
    records: Vec<Vec<ExpectedBallot>>,
    loops: Vec<LoopExits>,
    /// Per active call (main first): invocations that returned.
    returned: Vec<u128>,
    /// The counters of the enclosing `for` loops, innermost last.
    counters: Vec<u32>,
}

impl Simulator<'_> {
    /// Runs a block with `mask` active; returns those still active at its end.
    fn block(&mut self, stmts: &[Stmt], mut mask: u128) -> u128 {
        for s in stmts {
            if mask == 0 {
                break;
            }
            mask = self.stmt(s, mask);
        }
        mask
    }

    fn stmt(&mut self, stmt: &Stmt, mask: u128) -> u128 {
        match stmt {
            Stmt::Ballot(point) => {
                self.ballot(*point, mask);
                mask
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let taken = mask & self.cond(*cond);
                let then_out = self.block(then, taken);
                then_out | self.block(otherwise, mask & !taken)
            }
            Stmt::For { bound, body } => self.for_loop(*bound, body, mask),
            Stmt::ElectLoop { body } => self.elect_loop(body, mask),
            Stmt::Switch {
                selector,
                cases,
                default,
            } => {
                let mut out = 0;
                let mut rest = mask;
                for (values, body) in cases {
                    let group = mask & self.selects(*selector, values);
                    rest &= !group;
                    out |= self.block(body, group);
                }
                out | self.block(default, rest)
            }
            Stmt::Elect { body } => {
                let elected = self.elect(mask);
                (mask & !elected) | self.block(body, elected)
            }
            Stmt::Call(f) => {
                // A function sees neither its caller's loop counters nor its loops.
                let counters = std::mem::take(&mut self.counters);
                let loops = std::mem::take(&mut self.loops);
                self.returned.push(0);
                let body = &self.program.functions[*f];
                let out = self.block(body, mask);
                let returned = self.returned.pop().unwrap_or(0);
                self.counters = counters;
                self.loops = loops;
                out | returned
            }
            Stmt::Break => {
                if let Some(l) = self.loops.last_mut() {
                    l.broke |= mask;
                }
                0
            }
            Stmt::Continue => {
                if let Some(l) = self.loops.last_mut() {
                    l.continued |= mask;
                }
                0
            }
            Stmt::Return => {
                if let Some(r) = self.returned.last_mut() {
                    *r |= mask;
                }
                0
            }
        }
    }

    /// Invocations that leave by the bound wait at the loop's end with those that break; the
    /// rest, `continue` included, run the next iteration together.
    fn for_loop(&mut self, bound: Bound, body: &[Stmt], mask: u128) -> u128 {
        let mut active = mask;
        let mut done = 0;
        self.loops.push(LoopExits::default());
        for i in 0.. {
            let running = active & self.within(bound, i);
            done |= active & !running;
            if running == 0 {
                break;
            }
            self.counters.push(i);
            let out = self.block(body, running);
            self.counters.pop();
            let exits = self.loops.last_mut().expect("pushed above");
            active = out | std::mem::take(&mut exits.continued);
        }
        let exits = self.loops.pop().expect("pushed above");
        done | exits.broke
    }

    fn elect_loop(&mut self, body: &[Stmt], mask: u128) -> u128 {
        let mut active = mask;
        let mut done = 0;
        // The kernel's guard; never reached under maximal reconvergence.
        for _ in 0..=self.layout.invocations() {
            if active == 0 {
                break;
            }
            let out = self.block(body, active);
            let elected = self.elect(out);
            done |= elected;
            active = out & !elected;
        }
        done | active
    }

    fn ballot(&mut self, point: u32, mask: u128) {
        let layout = self.layout;
        let scopes = self.uniform.get(&point).copied().unwrap_or(Scopes::NONE);
        let workgroup_uniform = scopes.workgroup && mask == layout.all();
        for i in bits(mask) {
            let subgroup = layout.subgroups[layout.subgroup[i]];
            let ballot = mask & subgroup;
            self.records[i].push(ExpectedBallot {
                point,
                ballot,
                subgroup_uniform: scopes.subgroup && ballot == subgroup,
                workgroup_uniform,
            });
        }
    }

    /// The lowest active lane of each subgroup.
    fn elect(&self, mask: u128) -> u128 {
        let layout = self.layout;
        layout
            .subgroups
            .iter()
            .filter_map(|&s| bits(mask & s).min_by_key(|&i| layout.lane[i]))
            .fold(0, |m, i| m | 1 << i)
    }

    fn cond(&self, cond: Cond) -> u128 {
        let layout = self.layout;
        let where_ = |f: &dyn Fn(usize) -> bool| {
            (0..layout.invocations())
                .filter(|&i| f(i))
                .fold(0u128, |m, i| m | 1 << i)
        };
        match cond {
            Cond::Uniform(true) => layout.all(),
            Cond::Uniform(false) => 0,
            Cond::LaneMask(k) => {
                let m = self.program.lane_masks[k];
                where_(&|i| m >> layout.lane[i] & 1 == 1)
            }
            Cond::IdMask(k) => self.program.id_masks[k] & layout.all(),
            Cond::SubgroupMask(k) => {
                let m = self.program.id_masks[k];
                where_(&|i| {
                    let s = layout.subgroups[layout.subgroup[i]];
                    bits(s)
                        .find(|&j| layout.lane[j] == 0)
                        .is_some_and(|first| m >> first & 1 == 1)
                })
            }
            Cond::LaneAndIteration { modulus } => {
                let i_ = self.counters.last().copied().unwrap_or(0);
                where_(&|i| (layout.lane[i] + i_).is_multiple_of(modulus))
            }
        }
    }

    fn selects(&self, selector: Selector, values: &[u32]) -> u128 {
        let layout = self.layout;
        (0..layout.invocations())
            .filter(|&i| {
                let v = match selector {
                    Selector::Uniform(v) => v,
                    Selector::Lane { modulus } => layout.lane[i] % modulus,
                    Selector::Id { modulus } => i as u32 % modulus,
                };
                values.contains(&v)
            })
            .fold(0, |m, i| m | 1 << i)
    }

    fn within(&self, bound: Bound, i: u32) -> u128 {
        let layout = self.layout;
        match bound {
            Bound::Uniform(n) => {
                if i < n {
                    layout.all()
                } else {
                    0
                }
            }
            Bound::Lane { modulus } => (0..layout.invocations())
                .filter(|&j| i < layout.lane[j] % modulus + 1)
                .fold(0, |m, j| m | 1 << j),
        }
    }
}

/// Whether control flow is uniform across the subgroup and across the workgroup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scopes {
    pub subgroup: bool,
    pub workgroup: bool,
}

impl Scopes {
    pub const BOTH: Scopes = Scopes {
        subgroup: true,
        workgroup: true,
    };
    pub const NONE: Scopes = Scopes {
        subgroup: false,
        workgroup: false,
    };

    fn and(self, o: Scopes) -> Scopes {
        Scopes {
            subgroup: self.subgroup && o.subgroup,
            workgroup: self.workgroup && o.workgroup,
        }
    }

    fn of_cond(c: Cond) -> Scopes {
        match c {
            Cond::Uniform(_) => Scopes::BOTH,
            Cond::SubgroupMask(_) => Scopes {
                subgroup: true,
                workgroup: false,
            },
            Cond::LaneMask(_) | Cond::IdMask(_) | Cond::LaneAndIteration { .. } => Scopes::NONE,
        }
    }
}

/// Each record point's static uniformity, by the rules of WGSL's uniformity analysis (spec
/// "Uniformity") as they apply to these programs: a condition on the lane, the invocation or
/// an election is non-uniform; after an `if` or `switch` whose branches only fall through,
/// control flow is as uniform as before it, but not after one that may `break`, `continue` or
/// `return` under a non-uniform condition; a loop's body and everything after it are
/// non-uniform when its bound, its exits or its body's end are; a function's body is as
/// uniform as its least uniform call site, and a non-uniform `return` makes the caller
/// non-uniform after the call. Ballots in non-uniform control flow carry no reconvergence
/// promise, so the `subgroup` and `workgroup` styles skip them.
pub fn uniform_points(program: &Program) -> BTreeMap<u32, Scopes> {
    let mut walk = StaticWalk {
        program,
        points: BTreeMap::new(),
        record: true,
    };
    walk.block(&program.main, Scopes::BOTH);
    walk.points
}

/// What a block does to control flow: uniformity at its end, and at its exits.
#[derive(Clone, Copy)]
struct Flow {
    end: Scopes,
    /// The AND over `break` and `continue` of the innermost loop, and whether there are any.
    loop_exits: Option<Scopes>,
    /// The AND over `return`s, and whether there are any.
    returns: Option<Scopes>,
}

fn and_opt(a: Option<Scopes>, b: Option<Scopes>) -> Option<Scopes> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.and(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

struct StaticWalk<'a> {
    program: &'a Program,
    points: BTreeMap<u32, Scopes>,
    /// False on a loop's first pass, which only measures the body.
    record: bool,
}

impl StaticWalk<'_> {
    fn block(&mut self, stmts: &[Stmt], mut cf: Scopes) -> Flow {
        let mut flow = Flow {
            end: cf,
            loop_exits: None,
            returns: None,
        };
        for s in stmts {
            let f = self.stmt(s, cf);
            flow.loop_exits = and_opt(flow.loop_exits, f.loop_exits);
            flow.returns = and_opt(flow.returns, f.returns);
            cf = f.end;
        }
        flow.end = cf;
        flow
    }

    /// An `if`, `switch` or elect block: branches run under `inner`; after it control flow is
    /// `cf` again unless a branch may leave early.
    fn branches(&mut self, blocks: &[&Vec<Stmt>], cf: Scopes, decision: Scopes) -> Flow {
        let inner = cf.and(decision);
        let mut out = Flow {
            end: cf,
            loop_exits: None,
            returns: None,
        };
        let mut ends = inner;
        for b in blocks {
            let f = self.block(b, inner);
            out.loop_exits = and_opt(out.loop_exits, f.loop_exits);
            out.returns = and_opt(out.returns, f.returns);
            ends = ends.and(f.end);
        }
        if out.loop_exits.is_some() || out.returns.is_some() {
            out.end = ends;
        }
        out
    }

    fn stmt(&mut self, stmt: &Stmt, cf: Scopes) -> Flow {
        let plain = |end| Flow {
            end,
            loop_exits: None,
            returns: None,
        };
        match stmt {
            Stmt::Ballot(p) => {
                if self.record {
                    let entry = self.points.entry(*p).or_insert(cf);
                    *entry = entry.and(cf);
                }
                plain(cf)
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => self.branches(&[then, otherwise], cf, Scopes::of_cond(*cond)),
            Stmt::Switch {
                selector,
                cases,
                default,
            } => {
                let decision = match selector {
                    Selector::Uniform(_) => Scopes::BOTH,
                    Selector::Lane { .. } | Selector::Id { .. } => Scopes::NONE,
                };
                let blocks: Vec<&Vec<Stmt>> =
                    cases.iter().map(|(_, b)| b).chain([default]).collect();
                self.branches(&blocks, cf, decision)
            }
            Stmt::Elect { body } => self.branches(&[body], cf, Scopes::NONE),
            Stmt::For { bound, body } => {
                let bounded = cf.and(match bound {
                    Bound::Uniform(_) => Scopes::BOTH,
                    Bound::Lane { .. } => Scopes::NONE,
                });
                // First pass: what the body does to itself; the loop is only as uniform as
                // its exits and its end (the next iteration starts there).
                let record = std::mem::replace(&mut self.record, false);
                let trial = self.block(body, bounded);
                self.record = record;
                let looped = bounded
                    .and(trial.end)
                    .and(trial.loop_exits.unwrap_or(Scopes::BOTH));
                let f = self.block(body, looped);
                Flow {
                    end: looped,
                    loop_exits: None,
                    returns: f.returns,
                }
            }
            Stmt::ElectLoop { body } => {
                // Who leaves depends on an election: the loop is non-uniform throughout.
                let f = self.block(body, Scopes::NONE);
                Flow {
                    end: Scopes::NONE,
                    loop_exits: None,
                    returns: f.returns,
                }
            }
            Stmt::Call(f) => {
                let body = &self.program.functions[*f];
                let flow = self.block(body, cf);
                let after = flow.end.and(flow.returns.unwrap_or(Scopes::BOTH));
                plain(cf.and(after))
            }
            Stmt::Break | Stmt::Continue => Flow {
                end: cf,
                loop_exits: Some(cf),
                returns: None,
            },
            Stmt::Return => Flow {
                end: cf,
                loop_exits: None,
                returns: Some(cf),
            },
        }
    }
}

fn mask_below(n: usize) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// The set bits of `mask`, lowest first.
pub fn bits(mask: u128) -> impl Iterator<Item = usize> {
    (0..128).filter(move |&i| mask >> i & 1 == 1)
}

#[cfg(test)]
mod tests {
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
        let mut p = program(vec![
            Stmt::For {
                bound: Bound::Uniform(3),
                body: vec![
                    Stmt::Ballot(1),
                    if_(Cond::LaneMask(0), vec![Stmt::Break], vec![]),
                ],
            },
            Stmt::Ballot(2),
        ]);
        p.lane_masks = vec![0b0001];
        assert_eq!(seq(&p, 0), [(1, SG0), (2, SG0)]);
        let rest = ids(&[1, 2, 3]);
        assert_eq!(seq(&p, 1), [(1, SG0), (1, rest), (1, rest), (2, SG0)]);
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
        let mut breaking = program(vec![
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
        breaking.lane_masks = vec![1];
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
}
