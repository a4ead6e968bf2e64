//! Running a program over the whole workgroup with an active mask: each invocation's
//! expected ballots under maximal reconvergence.

use std::collections::BTreeMap;

use super::program::{Bound, Cond, Program, Selector, Stmt};
use super::static_uniformity::{Scopes, uniform_points};

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
