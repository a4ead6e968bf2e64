//! Where WGSL's static uniformity rules put each record point.

use std::collections::BTreeMap;

use super::program::{Bound, Cond, Program, Selector, Stmt};

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
