//! The election: the one lane of a subgroup that makes the subgroup's counts, the stripe of the
//! counters it counts into, and the entry builtins they (and `--lanes`) read, kept where a
//! callee can see them.

use naga::{AtomicFunction, BinaryOperator, Block, Expression, Handle, Literal, SubgroupOperation};

use super::Pass;
use super::emit::{Emitter, counter};
use super::globals::EntryArg;
use super::layout::{STRIPES, Word};

/// An election: true in one lane of the lanes that run together where it was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Election {
    pub elected: Handle<Expression>,
    /// The ballot of those lanes, which it was made from: votes and active-lane counts need no
    /// subgroup operation of their own.
    pub active: Handle<Expression>,
}

impl Pass<'_> {
    /// The lowest lane of the active lanes, elected by `subgroupBallot(true)`: the lane whose
    /// bit in the ballot (`subgroup_invocation_id`, or its rank at the entry in a 2-D or 3-D
    /// workgroup) is the lowest set.
    pub(super) fn elect_lanes(&self, fx: &mut Emitter<'_>, out: &mut Block) -> Election {
        let active = fx.ballot(out);
        self.elect_among(fx, active, out)
    }

    /// The election among the lanes of `active` (a ballot of the lanes that run on): the lane
    /// whose bit is its lowest.
    pub(super) fn elect_among(
        &self,
        fx: &mut Emitter<'_>,
        active: Handle<Expression>,
        out: &mut Block,
    ) -> Election {
        let (lane_id, _) = self.g.lane_id.expect("elections need subgroups");
        let pointer = fx.global(lane_id, out);
        let lane = fx.load(pointer);
        let lowest = fx.lowest_lane(active, out);
        Election {
            elected: fx.binary(BinaryOperator::Equal, lane, lowest),
            active,
        }
    }

    /// The election in force where the walk is ([`super::walk::Walk::election`]), or a new one,
    /// kept for the counts after it.
    pub(super) fn election(&self, fx: &mut Emitter<'_>, out: &mut Block) -> Election {
        self.at.election.get().unwrap_or_else(|| {
            let election = self.elect_lanes(fx, out);
            self.at.election.set(Some(election));
            election
        })
    }

    /// At the kernel's entry: the stripe base ([`Self::keep_stripe`]), the private copy of the
    /// lane id (for the election) and, with `--lanes`, of `workgroup_id` and
    /// `local_invocation_index`, which a callee cannot read from the entry's arguments.
    pub(super) fn keep_entry_builtins(&self, fx: &mut Emitter<'_>, out: &mut Block) {
        self.keep_stripe(fx, out);
        let lanes = self.g.lanes.iter().flat_map(|lanes| {
            [
                (lanes.workgroup, lanes.workgroup_arg),
                (lanes.local_index, lanes.local_index_arg),
            ]
        });
        for (global, arg) in lanes {
            let value = entry_arg(fx, arg, out);
            let pointer = fx.global(global, out);
            fx.store(pointer, value, out);
        }
        if let Some((global, arg)) = self.g.lane_id {
            let value = match arg {
                Some(arg) => entry_arg(fx, arg, out),
                None => {
                    let one = fx.literal(Literal::U32(1), out);
                    fx.scan(SubgroupOperation::Add, one, fx.u32_ty, out)
                }
            };
            let pointer = fx.global(global, out);
            fx.store(pointer, value, out);
        }
    }

    /// `divlab_stripe = ((wg.x + wg.y * 0x9E37u + wg.z * 0x85EBu) & (STRIPES - 1u)) * stride`:
    /// the first word of the copy of the counters this invocation's subgroup counts into (the
    /// stride is patched once the layout is known). Hashed from `workgroup_id`, which every
    /// lane of a subgroup shares (only the elected lane's stripe matters, but one per subgroup
    /// keeps it simple): workgroups start in x order, so those that run at once take
    /// consecutive copies, and the odd multipliers shift each row's and layer's.
    fn keep_stripe(&self, fx: &mut Emitter<'_>, out: &mut Block) {
        let counters = self.g.counters;
        let workgroup = entry_arg(fx, self.g.workgroup_arg, out);
        let mut hash = fx.member(workgroup, 0);
        for (index, multiplier) in [(1, 0x9E37), (2, 0x85EB)] {
            let multiplier = fx.literal(Literal::U32(multiplier), out);
            let coordinate = fx.member(workgroup, index);
            let term = fx.binary(BinaryOperator::Multiply, coordinate, multiplier);
            hash = fx.binary(BinaryOperator::Add, hash, term);
        }
        let mask = fx.literal(Literal::U32(STRIPES - 1), out);
        let stripe = fx.binary(BinaryOperator::And, hash, mask);
        let stride = fx.literal(Literal::U32(0), out);
        fx.patches.push((stride, Word::StripeStride));
        let base = fx.binary(BinaryOperator::Multiply, stripe, stride);
        let pointer = fx.global(counters.stripe, out);
        fx.store(pointer, base, out);
    }

    /// At the kernel's entry, by the elected lane: `atomicMax` of the subgroup's active lanes
    /// (the same in every lane), so the host learns the widest ballot; and of the
    /// `subgroup_size` builtin, the width of the pipeline's subgroups (a workgroup of 1
    /// invocation fills 1 of them).
    pub(super) fn record_max_lanes(&self, fx: &mut Emitter<'_>, out: &mut Block) {
        let Election { elected, active } = self.election(fx, out);
        let lanes = fx.lanes_of(active);
        let width = entry_arg(fx, self.g.subgroup_size.expect("subgroups"), out);
        let counters = self.g.counters;
        let record = fx.nested(out, |fx, b| {
            let pointer = counter(fx, counters, Word::MaxLanes, b);
            fx.atomic(pointer, AtomicFunction::Max, lanes, b);
            let pointer = counter(fx, counters, Word::SubgroupWidth, b);
            fx.atomic(pointer, AtomicFunction::Max, width, b);
        });
        fx.if_then(elected, record, out);
    }
}

/// The value of entry argument `arg` (or of its struct member).
fn entry_arg(fx: &mut Emitter<'_>, (arg, member): EntryArg, out: &mut Block) -> Handle<Expression> {
    let argument = fx.unemitted(Expression::FunctionArgument(arg), out);
    match member {
        Some(index) => fx.member(argument, index),
        None => argument,
    }
}
