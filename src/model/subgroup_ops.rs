//! The subgroup-operation catalog's CPU reference: what each WGSL subgroup and quad builtin
//! gives a lane over the active set it observed, and names for what indeterminate reads (from
//! inactive or out-of-range lanes) returned. The kernel is `shaders/subgroup_ops.wgsl`; the
//! experiment `src/experiments/subgroup_ops.rs` runs it and holds its records against this.

/// The number of result slots, as the shader declares it (its layout test checks the value).
pub use crate::shaders::subgroup_ops::BUILTINS;

/// The lane's input. Keep in sync with `lane_data` in the shader (u32 arithmetic wraps there).
pub fn lane_data(local_index: u32, workgroup: u32) -> u32 {
    1 + local_index
        .wrapping_mul(37)
        .wrapping_add(workgroup.wrapping_mul(11))
        % 251
}

/// Which invocations run the ops. Keep the numbers in sync with `SPLIT_*` in the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// All, in uniform control flow.
    Uniform,
    /// Even `subgroup_invocation_id`.
    Even,
    /// Odd `subgroup_invocation_id`.
    Odd,
    /// `sid < size / 2`.
    LowerHalf,
    /// `sid >= size / 2`.
    UpperHalf,
    /// `sid < 2`.
    FirstTwo,
    /// The invocation's bit in a random mask.
    Random,
}

impl Split {
    /// Every split, in dispatch order (the order is the number).
    pub const ALL: [Split; 7] = [
        Split::Uniform,
        Split::Even,
        Split::Odd,
        Split::LowerHalf,
        Split::UpperHalf,
        Split::FirstTwo,
        Split::Random,
    ];

    /// The name in params and details.
    pub fn name(self) -> &'static str {
        match self {
            Split::Uniform => "uniform",
            Split::Even => "even",
            Split::Odd => "odd",
            Split::LowerHalf => "lower_half",
            Split::UpperHalf => "upper_half",
            Split::FirstTwo => "first_two",
            Split::Random => "random",
        }
    }

    /// Whether the lane takes the branch. Mirrors `in_split` in the shader.
    pub fn holds(self, sid: u32, size: u32, global_index: u32, mask: &[u32]) -> bool {
        match self {
            Split::Uniform => true,
            Split::Even => sid.is_multiple_of(2),
            Split::Odd => sid % 2 == 1,
            Split::LowerHalf => sid < size / 2,
            Split::UpperHalf => sid >= size / 2,
            Split::FirstTwo => sid < 2,
            Split::Random => mask
                .get((global_index / 32) as usize)
                .is_some_and(|w| (w >> (global_index % 32)) & 1 == 1),
        }
    }
}

/// Declares `Op`, its slot order and its names from one table, so they cannot disagree.
macro_rules! ops {
    ($($op:ident => $wgsl:literal, $slot:literal;)*) => {
        /// The builtins, in result-slot order. Keep in sync with `OP_*` in the shader.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub enum Op {
            $(#[doc = concat!("`", $wgsl, "`")] $op,)*
        }

        impl Op {
            /// Every builtin, slot i at index i.
            pub const ALL: [Op; BUILTINS] = [$(Op::$op),*];

            /// The WGSL builtin and its slot constant in the shader.
            pub fn names(self) -> (&'static str, &'static str) {
                match self {
                    $(Op::$op => ($wgsl, $slot),)*
                }
            }
        }
    };
}

ops! {
    Add => "subgroupAdd", "OP_ADD";
    Mul => "subgroupMul", "OP_MUL";
    Min => "subgroupMin", "OP_MIN";
    Max => "subgroupMax", "OP_MAX";
    And => "subgroupAnd", "OP_AND";
    Or => "subgroupOr", "OP_OR";
    Xor => "subgroupXor", "OP_XOR";
    ExclusiveAdd => "subgroupExclusiveAdd", "OP_EXCLUSIVE_ADD";
    ExclusiveMul => "subgroupExclusiveMul", "OP_EXCLUSIVE_MUL";
    InclusiveAdd => "subgroupInclusiveAdd", "OP_INCLUSIVE_ADD";
    InclusiveMul => "subgroupInclusiveMul", "OP_INCLUSIVE_MUL";
    All => "subgroupAll", "OP_ALL";
    Any => "subgroupAny", "OP_ANY";
    Ballot => "subgroupBallot", "OP_BALLOT";
    Broadcast => "subgroupBroadcast", "OP_BROADCAST";
    BroadcastFirst => "subgroupBroadcastFirst", "OP_BROADCAST_FIRST";
    Elect => "subgroupElect", "OP_ELECT";
    Shuffle => "subgroupShuffle", "OP_SHUFFLE";
    ShuffleXor => "subgroupShuffleXor", "OP_SHUFFLE_XOR";
    ShuffleUp => "subgroupShuffleUp", "OP_SHUFFLE_UP";
    ShuffleDown => "subgroupShuffleDown", "OP_SHUFFLE_DOWN";
    QuadBroadcast => "quadBroadcast", "OP_QUAD_BROADCAST";
    QuadSwapX => "quadSwapX", "OP_QUAD_SWAP_X";
    QuadSwapY => "quadSwapY", "OP_QUAD_SWAP_Y";
    QuadSwapDiagonal => "quadSwapDiagonal", "OP_QUAD_SWAP_DIAGONAL";
}

impl Op {
    /// The WGSL builtin's name.
    pub fn name(self) -> &'static str {
        self.names().0
    }
}

/// What one result component should hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// What every conforming implementation returns.
    Value(u32),
    /// A read from a lane outside the active set: WGSL leaves the result indeterminate.
    Inactive {
        /// The source lane, possibly outside `[0, size)`.
        source: i64,
    },
    /// The shader writes 0 there; nothing to check.
    Unused,
}

/// One lane's view of its subgroup in one split: what the CPU model needs.
#[derive(Clone, Debug)]
pub struct LaneView<'a> {
    /// The lane's `subgroup_invocation_id`.
    pub sid: u32,
    /// The subgroup size.
    pub size: u32,
    /// The active set the lane observed, bit i for lane i.
    pub active: u128,
    /// Every lane's [`lane_data`], by `subgroup_invocation_id`.
    pub values: &'a [u32],
}

/// Whether `lane` is in `set`; false outside [0, 128) rather than a shift overflow.
fn has(set: u128, lane: i64) -> bool {
    (0..128).contains(&lane) && set >> lane & 1 == 1
}

impl LaneView<'_> {
    fn value(&self, lane: i64) -> Option<u32> {
        usize::try_from(lane)
            .ok()
            .and_then(|i| self.values.get(i).copied())
    }

    /// Values of active lanes below `end`, in lane order.
    fn active_below(&self, end: i64) -> impl Iterator<Item = u32> + '_ {
        (0..end.min(i64::from(self.size)))
            .filter(|&j| has(self.active, j))
            .map(|j| self.value(j).unwrap_or(0))
    }

    fn gather(&self, source: i64) -> Expected {
        match self.value(source) {
            Some(v) if source < i64::from(self.size) && has(self.active, source) => {
                Expected::Value(v)
            }
            _ => Expected::Inactive { source },
        }
    }
}

/// What `op` should give the lane. Mirrors the arguments in `run_ops` in the shader.
pub fn expected(op: Op, view: &LaneView) -> [Expected; 4] {
    use Expected::{Unused, Value};
    let one = |x: u32| [Value(x), Unused, Unused, Unused];
    let (sid, size) = (i64::from(view.sid), i64::from(view.size));
    let all = || view.active_below(size);
    let sum = |end: i64| view.active_below(end).fold(0u32, u32::wrapping_add);
    // The shader multiplies `v | 1`.
    let product = |end: i64| {
        view.active_below(end)
            .fold(1u32, |a, v| a.wrapping_mul(v | 1))
    };
    let pa = |v: u32| !v.is_multiple_of(3);
    let pb = |v: u32| v < 128;
    let gather4 = |source: &dyn Fn(i64) -> i64| [0, 1, 2, 3].map(|k| view.gather(source(k)));
    let first = (0..size).find(|&j| has(view.active, j));
    match op {
        Op::Add => one(sum(size)),
        Op::Mul => one(product(size)),
        Op::Min => one(all().min().unwrap_or(u32::MAX)),
        Op::Max => one(all().max().unwrap_or(0)),
        Op::And => one(all().fold(!0, |a, v| a & v)),
        Op::Or => one(all().fold(0, |a, v| a | v)),
        Op::Xor => one(all().fold(0, |a, v| a ^ v)),
        Op::ExclusiveAdd => one(sum(sid)),
        Op::ExclusiveMul => one(product(sid)),
        Op::InclusiveAdd => one(sum(sid + 1)),
        Op::InclusiveMul => one(product(sid + 1)),
        Op::All => [
            Value(all().all(pa).into()),
            Value(all().all(pb).into()),
            Value(1),
            Unused,
        ],
        Op::Any => [
            Value(all().any(pa).into()),
            Value(all().any(pb).into()),
            Value(0),
            Unused,
        ],
        Op::Ballot => {
            let bits = (0..size.min(128))
                .filter(|&j| has(view.active, j) && view.value(j).is_some_and(pa))
                .fold(0u128, |b, j| b | 1 << j);
            [0, 1, 2, 3].map(|w| Value((bits >> (32 * w)) as u32))
        }
        Op::Broadcast => gather4(&|k| k),
        Op::BroadcastFirst => one(first.and_then(|j| view.value(j)).unwrap_or(0)),
        Op::Elect => one((first == Some(sid)).into()),
        Op::Shuffle => [(sid + 1) & (size - 1), size - 1 - sid, sid, 0].map(|s| view.gather(s)),
        Op::ShuffleXor => gather4(&|k| sid ^ [1, 2, 3, size - 1][k as usize]),
        Op::ShuffleUp => gather4(&|k| sid - [1, 2, 3, size / 2][k as usize]),
        Op::ShuffleDown => gather4(&|k| sid + [1, 2, 3, size / 2][k as usize]),
        Op::QuadBroadcast => gather4(&|k| (sid & !3) | k),
        Op::QuadSwapX => [view.gather(sid ^ 1), Unused, Unused, Unused],
        Op::QuadSwapY => [view.gather(sid ^ 2), Unused, Unused, Unused],
        Op::QuadSwapDiagonal => [view.gather(sid ^ 3), Unused, Unused, Unused],
    }
}

/// Names what an indeterminate read returned, for the portability notes. Lane values are
/// distinct and never 0, so the names do not overlap.
pub fn classify_inactive(got: u32, view: &LaneView, source: i64) -> &'static str {
    let size = i64::from(view.size);
    let held_by = |lane: i64| view.value(lane) == Some(got);
    if got == 0 {
        "0"
    } else if held_by(i64::from(view.sid)) {
        "the lane's own value"
    } else if (0..size).contains(&source) && held_by(source) {
        "the source lane's value"
    } else if size > 0 && !(0..size).contains(&source) && held_by(source.rem_euclid(size)) {
        "the wrapped-around lane's value"
    } else if size > 0 && !(0..size).contains(&source) && held_by(source.clamp(0, size - 1)) {
        "the clamped lane's value"
    } else if view.values.contains(&got) {
        "another lane's value"
    } else {
        "a value no lane holds (stale?)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight lanes with values 10..18, even lanes active.
    fn even_view(sid: u32, values: &[u32]) -> LaneView<'_> {
        LaneView {
            sid,
            size: 8,
            active: 0x55,
            values,
        }
    }

    #[test]
    fn model_acts_on_the_active_set_only() {
        let values: Vec<u32> = (10..18).collect();
        let lane4 = even_view(4, &values);
        let x = |op| expected(op, &lane4)[0];
        assert_eq!(x(Op::Add), Expected::Value(10 + 12 + 14 + 16));
        assert_eq!(x(Op::Mul), Expected::Value(11 * 13 * 15 * 17));
        assert_eq!(x(Op::Min), Expected::Value(10));
        assert_eq!(x(Op::ExclusiveAdd), Expected::Value(10 + 12));
        assert_eq!(x(Op::InclusiveAdd), Expected::Value(10 + 12 + 14));
        assert_eq!(x(Op::ExclusiveMul), Expected::Value(11 * 13));
        assert_eq!(x(Op::BroadcastFirst), Expected::Value(10));
        assert_eq!(x(Op::Elect), Expected::Value(0));
        assert_eq!(
            expected(Op::Elect, &even_view(0, &values))[0],
            Expected::Value(1)
        );
        // Of the active lanes' 10, 12, 14 and 16, only 12 is a multiple of 3.
        assert_eq!(x(Op::Ballot), Expected::Value(0b101_0001));
        assert_eq!(x(Op::QuadSwapX), Expected::Inactive { source: 5 });
        assert_eq!(x(Op::QuadSwapY), Expected::Value(16));
        let up = expected(Op::ShuffleUp, &even_view(0, &values));
        assert_eq!(up[1], Expected::Inactive { source: -2 });
        let down = expected(Op::ShuffleDown, &even_view(6, &values));
        assert_eq!(down[1], Expected::Inactive { source: 8 });
        assert_eq!(down[3], Expected::Inactive { source: 10 });
    }

    #[test]
    fn inactive_reads_are_named() {
        let values: Vec<u32> = (10..18).collect();
        let lane0 = even_view(0, &values);
        assert_eq!(classify_inactive(0, &lane0, 1), "0");
        assert_eq!(classify_inactive(10, &lane0, 1), "the lane's own value");
        assert_eq!(classify_inactive(11, &lane0, 1), "the source lane's value");
        assert_eq!(
            classify_inactive(17, &lane0, -1),
            "the wrapped-around lane's value"
        );
        assert_eq!(classify_inactive(17, &lane0, 9), "the clamped lane's value");
        assert_eq!(classify_inactive(13, &lane0, 1), "another lane's value");
        assert_eq!(
            classify_inactive(99, &lane0, 1),
            "a value no lane holds (stale?)"
        );
    }
}
