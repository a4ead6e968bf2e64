//! The program tree: statements, conditions, selectors and loop bounds.

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
