//! The election: the one lane of a subgroup that makes the subgroup's counts, and the entry
//! builtins it (and `--lanes`) reads, kept where a callee can see them.

use naga::{AtomicFunction, BinaryOperator, Block, Expression, Handle};

use super::Pass;
use super::count::counter;
use super::emit::Emitter;
use super::layout::Word;

impl Pass<'_> {
    /// `lane == subgroupBroadcastFirst(lane)`: true in the lowest active lane only (`lane` is
    /// `subgroup_invocation_id`, or in a 2-D or 3-D workgroup, where naga forbids that builtin,
    /// `local_invocation_index`: unique in the subgroup too, so the same lane wins). One ballot
    /// and one shuffle; the `subgroupExclusiveAdd(1u) == 0u` it replaced was a scan of five
    /// shuffles, and on the H200 it was three quarters of the instrumented switch kernel's time
    /// (the kernel alone 10.6 ms at k = 32: 210 ms with the scan, 52 ms with no election).
    /// (naga 30 has no `subgroupElect`.)
    pub(super) fn elect(&self, fx: &mut Emitter<'_>, out: &mut Block) -> Handle<Expression> {
        let (global, _) = self.g.lane_id.expect("elections need subgroups");
        let pointer = fx.global(global, out);
        let lane = fx.load(pointer);
        let first = fx.broadcast_first(lane, self.g.u32_ty, out);
        fx.binary(BinaryOperator::Equal, lane, first)
    }

    /// At the kernel's entry: the private copy of the lane id (for the election)
    /// and, with `--lanes`, of `workgroup_id` and `local_invocation_index`, which a callee
    /// cannot read from the entry's arguments.
    pub(super) fn keep_entry_builtins(&self, fx: &mut Emitter<'_>, out: &mut Block) {
        let lanes = self.g.lanes.iter().flat_map(|lanes| {
            [
                (lanes.workgroup, lanes.workgroup_arg),
                (lanes.local_index, lanes.local_index_arg),
            ]
        });
        for (global, (arg, member)) in self.g.lane_id.into_iter().chain(lanes) {
            let argument = fx.unemitted(Expression::FunctionArgument(arg), out);
            let value = match member {
                Some(index) => fx.member(argument, index),
                None => argument,
            };
            let pointer = fx.global(global, out);
            fx.store(pointer, value, out);
        }
    }

    /// At the kernel's entry: `atomicMax` of the subgroup's active lanes, so the host learns the
    /// widest ballot; and by the elected lane, of the `subgroup_size` builtin, the width of the
    /// pipeline's subgroups (a workgroup of 1 invocation fills 1 of them).
    pub(super) fn record_max_lanes(&self, fx: &mut Emitter<'_>, out: &mut Block) {
        let lanes = fx.active_lanes(out);
        let pointer = counter(fx, self.g.counters, Word::MaxLanes, out);
        fx.atomic(pointer, AtomicFunction::Max, lanes, out);
        let (arg, member) = self.g.subgroup_size.expect("subgroups");
        let argument = fx.unemitted(Expression::FunctionArgument(arg), out);
        let width = match member {
            Some(index) => fx.member(argument, index),
            None => argument,
        };
        let elected = self.elect(fx, out);
        let counters = self.g.counters;
        let record = fx.nested(out, |fx, b| {
            let pointer = counter(fx, counters, Word::SubgroupWidth, b);
            fx.atomic(pointer, AtomicFunction::Max, width, b);
        });
        fx.if_then(elected, record, out);
    }
}
