//! The seeded program generator: the same seed, size and style give the same program.

use crate::model::reconvergence::{Bound, Cond, Program, Selector, Stmt};

/// How big generated programs get.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Size {
    Small,
    Medium,
    Large,
}

impl Size {
    /// (deepest nesting, statements per block, functions, statements in all).
    fn limits(self) -> (u32, u32, usize, usize) {
        match self {
            Size::Small => (2, 3, 1, 16),
            Size::Medium => (3, 4, 2, 32),
            Size::Large => (4, 5, 3, 64),
        }
    }
}

/// The enclosing construct that `break` and `continue` would act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// No loop: neither may appear.
    None,
    /// A `for` loop, directly: both may appear.
    For,
    /// A `switch` case or an elect loop's body: WGSL's `break` would leave the switch or the
    /// elect loop, which the model does not describe, so neither appears.
    Blocked,
}

#[derive(Clone, Copy)]
struct Context {
    depth: u32,
    scope: Scope,
    /// `for` counters in scope in the current function.
    counters: u32,
    /// The current function (`None` in `main`): it may call only higher-numbered ones.
    function: Option<usize>,
    /// Inside an `if` branch, where a terminator makes sense.
    in_branch: bool,
}

struct Generator {
    rng: fastrand::Rng,
    max_depth: u32,
    block_len: u32,
    functions: usize,
    budget: usize,
    points: u32,
    allow_elect: bool,
    lane_masks: usize,
    id_masks: usize,
}

/// Generates the program of `seed`. `allow_elect` adds `subgroupElect()` constructs, whose
/// control flow depends on which invocations are together: only the `maximal` style can
/// predict it.
pub fn generate(seed: u64, size: Size, allow_elect: bool) -> Program {
    let (max_depth, block_len, functions, budget) = size.limits();
    let mut rng = fastrand::Rng::with_seed(seed);
    let functions = rng.usize(0..=functions);
    let mut g = Generator {
        rng,
        max_depth,
        block_len,
        functions,
        budget,
        points: 0,
        allow_elect,
        lane_masks: 4,
        id_masks: 4,
    };
    // Functions first, highest first, so each body may call the ones generated before it.
    let mut bodies = vec![Vec::new(); functions];
    for f in (0..functions).rev() {
        bodies[f] = g.block(Context {
            depth: 1,
            scope: Scope::None,
            counters: 0,
            function: Some(f),
            in_branch: false,
        });
    }
    let main = g.block(Context {
        depth: 0,
        scope: Scope::None,
        counters: 0,
        function: None,
        in_branch: false,
    });
    let lane_masks = (0..g.lane_masks).map(|_| g.rng.u128(..)).collect();
    let id_masks = (0..g.id_masks).map(|_| g.rng.u128(..)).collect();
    Program {
        main,
        functions: bodies,
        lane_masks,
        id_masks,
    }
}

impl Generator {
    fn block(&mut self, cx: Context) -> Vec<Stmt> {
        let len = self.rng.u32(1..=self.block_len);
        let mut stmts = Vec::new();
        for _ in 0..len {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            stmts.push(self.stmt(cx));
        }
        if cx.in_branch && self.rng.u32(0..4) == 0 {
            match (cx.scope, self.rng.u32(0..3)) {
                (Scope::For, 0) => stmts.push(Stmt::Break),
                (Scope::For, 1) => stmts.push(Stmt::Continue),
                _ if self.rng.u32(0..3) == 0 => stmts.push(Stmt::Return),
                _ => {}
            }
        }
        stmts
    }

    fn ballot(&mut self) -> Stmt {
        self.points += 1;
        Stmt::Ballot(self.points)
    }

    fn stmt(&mut self, cx: Context) -> Stmt {
        if cx.depth >= self.max_depth {
            return self.ballot();
        }
        let inner = Context {
            depth: cx.depth + 1,
            in_branch: false,
            ..cx
        };
        let callable = cx.function.map_or(0, |f| f + 1)..self.functions;
        loop {
            match self.rng.u32(0..16) {
                0..=3 => return self.ballot(),
                4..=7 => {
                    let cond = self.cond(cx);
                    let branch = Context {
                        in_branch: true,
                        ..inner
                    };
                    let then = self.block(branch);
                    let otherwise = if self.rng.bool() {
                        self.block(branch)
                    } else {
                        Vec::new()
                    };
                    return Stmt::If {
                        cond,
                        then,
                        otherwise,
                    };
                }
                8 | 9 => {
                    let bound = if self.rng.bool() {
                        Bound::Uniform(self.rng.u32(1..=3))
                    } else {
                        Bound::Lane {
                            modulus: self.rng.u32(2..=4),
                        }
                    };
                    let body = self.block(Context {
                        scope: Scope::For,
                        counters: cx.counters + 1,
                        ..inner
                    });
                    return Stmt::For { bound, body };
                }
                10 | 11 => return self.switch(cx, inner),
                12 if !callable.is_empty() => {
                    return Stmt::Call(self.rng.usize(callable.clone()));
                }
                13 if self.allow_elect => {
                    let body = self.block(inner);
                    return Stmt::Elect { body };
                }
                14 if self.allow_elect => {
                    let body = self.block(Context {
                        scope: Scope::Blocked,
                        ..inner
                    });
                    return Stmt::ElectLoop { body };
                }
                _ => {}
            }
        }
    }

    fn switch(&mut self, cx: Context, inner: Context) -> Stmt {
        let (selector, values) = match self.rng.u32(0..5) {
            0 => (Selector::Uniform(self.rng.u32(0..4)), 4),
            1 => {
                let modulus = self.rng.u32(2..=5);
                (Selector::Id { modulus }, modulus)
            }
            _ => {
                let modulus = self.rng.u32(2..=5);
                (Selector::Lane { modulus }, modulus)
            }
        };
        let mut pool: Vec<u32> = (0..values).collect();
        self.rng.shuffle(&mut pool);
        // Keep at least one value for `default` now and then.
        pool.truncate(self.rng.usize(1..=pool.len()));
        let body_cx = Context {
            scope: if cx.scope == Scope::None {
                Scope::None
            } else {
                Scope::Blocked
            },
            ..inner
        };
        let mut cases = Vec::new();
        while !pool.is_empty() {
            let take = self.rng.usize(1..=pool.len().min(2));
            let mut group: Vec<u32> = pool.drain(..take).collect();
            group.sort_unstable();
            cases.push((group, self.block(body_cx)));
        }
        let default = if self.rng.bool() {
            self.block(body_cx)
        } else {
            Vec::new()
        };
        Stmt::Switch {
            selector,
            cases,
            default,
        }
    }

    fn cond(&mut self, cx: Context) -> Cond {
        loop {
            match self.rng.u32(0..9) {
                0 => return Cond::Uniform(self.rng.bool()),
                8 => return Cond::SubgroupMask(self.rng.usize(0..self.id_masks)),
                1..=3 => return Cond::LaneMask(self.rng.usize(0..self.lane_masks)),
                4 | 5 => return Cond::IdMask(self.rng.usize(0..self.id_masks)),
                _ if cx.counters > 0 => {
                    return Cond::LaneAndIteration {
                        modulus: self.rng.u32(2..=4),
                    };
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_program() {
        for seed in 0..50 {
            assert_eq!(
                generate(seed, Size::Medium, true),
                generate(seed, Size::Medium, true)
            );
        }
        assert_ne!(
            generate(1, Size::Medium, true),
            generate(2, Size::Medium, true)
        );
    }
}
