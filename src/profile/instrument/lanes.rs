//! `--lanes LINE`: every subgroup execution of the line's block records its ballot, its
//! workgroup and its lowest active lane into the lanes buffer ([`super::read_lanes`] decodes
//! it).

use naga::{BinaryOperator, Block, Expression, Literal, SubgroupOperation};

use super::Pass;
use super::emit::Emitter;
use super::layout::{LANE_RECORD_WORDS, LANE_RECORDS};

impl Pass<'_> {
    /// At the block's entry: the elected lane takes the next record of the lanes buffer and
    /// writes the subgroup's ballot, its workgroup and its lowest active lane's local index.
    pub(super) fn record_lanes(&self, fx: &mut Emitter<'_>, out: &mut Block) {
        let Some(lanes) = &self.g.lanes else { return };
        let ballot = fx.ballot(out);
        let local_pointer = fx.global(lanes.local_index, out);
        let local_index = fx.load(local_pointer);
        let first = fx.reduce(SubgroupOperation::Min, local_index, self.g.u32_ty, out);
        let elected = self.elect(fx, out);
        let (buffer, workgroup) = (lanes.buffer, lanes.workgroup);
        let accept = fx.nested(out, |fx, b| {
            let base = fx.global(buffer, b);
            let count = fx.member(base, 0);
            let one = fx.literal(Literal::U32(1), b);
            let slot = fx.atomic_add(count, one, b);
            let capacity = fx.literal(Literal::U32(LANE_RECORDS), b);
            let room = fx.binary(BinaryOperator::Less, slot, capacity);
            let write = fx.nested(b, |fx, b| {
                let words = fx.literal(Literal::U32(LANE_RECORD_WORDS), b);
                let one = fx.literal(Literal::U32(1), b);
                let scaled = fx.binary(BinaryOperator::Multiply, slot, words);
                let start = fx.binary(BinaryOperator::Add, scaled, one);
                let group_pointer = fx.global(workgroup, b);
                let group = fx.load(group_pointer);
                let mut values: Vec<_> = (0..4).map(|index| fx.member(ballot, index)).collect();
                values.extend((0..3).map(|index| fx.member(group, index)));
                values.push(first);
                for (offset, value) in values.into_iter().enumerate() {
                    let at = fx.literal(Literal::U32(offset as u32), b);
                    let word = fx.binary(BinaryOperator::Add, start, at);
                    let base = fx.global(buffer, b);
                    let pointer = fx.emitted(Expression::Access { base, index: word });
                    fx.store(pointer, value, b);
                }
            });
            fx.if_then(room, write, b);
        });
        fx.if_then(elected, accept, out);
    }
}
