//! `--lanes LINE`: every subgroup execution of the line's block records its ballot, its
//! workgroup and its lowest active lane into the lanes buffer ([`super::read_lanes`] decodes
//! it). In a 2-D or 3-D workgroup, where a lane cannot read its own lane number, the record also
//! says which invocations the active lanes were, and whether each lane checked that it was the
//! lane its local index implies.

use naga::{BinaryOperator, Block, Expression, Handle, Literal, MathFunction, SubgroupOperation};

use super::Pass;
use super::emit::Emitter;
use super::layout::{
    LANE_RECORD_WORDS, LANE_RECORD_WORDS_MULTI, LANE_RECORDS, LANES_COMPLETE, LANES_CONTIGUOUS,
};

type Expr = Handle<Expression>;

impl Pass<'_> {
    /// At the block's entry: the elected lane takes the next record of the lanes buffer and
    /// writes the subgroup's ballot, its workgroup and its lowest active lane's local index
    /// (and in a 2-D or 3-D workgroup, [`Self::lane_invocations`]).
    pub(super) fn record_lanes(&self, fx: &mut Emitter<'_>, out: &mut Block) {
        let Some(lanes) = &self.g.lanes else { return };
        let ballot = fx.ballot(out);
        let local_pointer = fx.global(lanes.local_index, out);
        let local_index = fx.load(local_pointer);
        let first = fx.reduce(SubgroupOperation::Min, local_index, self.g.u32_ty, out);
        let (record_words, extra) = if self.g.multi_dim {
            let (mask, flags) = self.lane_invocations(fx, (ballot, local_index, first), out);
            let mut extra: Vec<Expr> = (0..4).map(|index| fx.member(mask, index)).collect();
            extra.push(flags);
            (LANE_RECORD_WORDS_MULTI, extra)
        } else {
            (LANE_RECORD_WORDS, Vec::new())
        };
        let elected = self.elect_among(fx, ballot, out).elected;
        let (buffer, workgroup) = (lanes.buffer, lanes.workgroup);
        let accept = fx.nested(out, |fx, b| {
            let base = fx.global(buffer, b);
            let count = fx.member(base, 0);
            let one = fx.literal(Literal::U32(1), b);
            let slot = fx.atomic_add(count, one, b);
            let capacity = fx.literal(Literal::U32(LANE_RECORDS), b);
            let room = fx.binary(BinaryOperator::Less, slot, capacity);
            let write = fx.nested(b, |fx, b| {
                let words = fx.literal(Literal::U32(record_words), b);
                let one = fx.literal(Literal::U32(1), b);
                let scaled = fx.binary(BinaryOperator::Multiply, slot, words);
                let start = fx.binary(BinaryOperator::Add, scaled, one);
                let group_pointer = fx.global(workgroup, b);
                let group = fx.load(group_pointer);
                let mut values: Vec<_> = (0..4).map(|index| fx.member(ballot, index)).collect();
                values.extend((0..3).map(|index| fx.member(group, index)));
                values.push(first);
                values.extend(extra);
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

    /// In a 2-D or 3-D workgroup, from every active lane: which invocations the active lanes
    /// are (a `vec4<u32>` mask, bit `i` for local index `first + i`, from a `subgroupOr` of
    /// each lane's bit), and the flags [`LANES_COMPLETE`] (every lane's bit fitted in the mask)
    /// and [`LANES_CONTIGUOUS`] (every lane found, by `subgroupShuffle` of the local index from
    /// lane `lowest + (index - first)`, its own index: so it is that lane).
    fn lane_invocations(
        &self,
        fx: &mut Emitter<'_>,
        (ballot, local_index, first): (Expr, Expr, Expr),
        out: &mut Block,
    ) -> (Expr, Expr) {
        use BinaryOperator::{
            Add, And, Equal, Less, LogicalAnd, NotEqual, ShiftLeft, ShiftRight, Subtract,
        };
        let u32_ty = self.g.u32_ty;
        let vec4_ty = self.g.ballot_ty;
        let [zero, one, five, low_bits, window] =
            [0, 1, 5, 31, 128].map(|n| fx.literal(Literal::U32(n), out));
        // `1u << (n & 31u)` in word `n >> 5u` of a vec4<u32>, where `n < 128u`.
        let bit_of = |fx: &mut Emitter<'_>, n: Expr| {
            let shift = fx.binary(And, n, low_bits);
            (
                fx.binary(ShiftLeft, one, shift),
                fx.binary(ShiftRight, n, five),
            )
        };

        let offset = fx.binary(Subtract, local_index, first);
        let inside = fx.binary(Less, offset, window);
        let (bit, word) = bit_of(fx, offset);
        let mut components = Vec::new();
        for w in 0..4 {
            let w = fx.literal(Literal::U32(w), out);
            let here = fx.binary(Equal, word, w);
            let mine = fx.binary(LogicalAnd, inside, here);
            components.push(fx.select(mine, bit, zero));
        }
        let own = fx.emitted(Expression::Compose {
            ty: vec4_ty,
            components,
        });
        let mask = fx.reduce(SubgroupOperation::Or, own, vec4_ty, out);
        let complete = fx.vote(SubgroupOperation::All, inside, out);

        // The lowest lane of the ballot: the first word with a bit set, its lowest bit.
        let trailing = fx.emitted(Expression::Math {
            fun: MathFunction::FirstTrailingBit,
            arg: ballot,
            arg1: None,
            arg2: None,
            arg3: None,
        });
        let mut lowest = None;
        for w in (0..4u32).rev() {
            let bits = fx.member(trailing, w);
            let base = fx.literal(Literal::U32(32 * w), out);
            let lane = fx.binary(Add, base, bits);
            lowest = Some(match lowest {
                None => lane,
                Some(later) => {
                    let word = fx.member(ballot, w);
                    let any = fx.binary(NotEqual, word, zero);
                    fx.select(any, lane, later)
                }
            });
        }
        let lowest = lowest.expect("four words");
        let guess = fx.binary(Add, lowest, offset);
        let fits = fx.binary(Less, guess, window);
        let in_range = fx.binary(LogicalAnd, inside, fits);
        let lane = fx.select(in_range, guess, lowest);
        let (_, word) = bit_of(fx, lane);
        let ballot_word = fx.emitted(Expression::Access {
            base: ballot,
            index: word,
        });
        let shift = fx.binary(And, lane, low_bits);
        let shifted = fx.binary(ShiftRight, ballot_word, shift);
        let set_bit = fx.binary(And, shifted, one);
        let set = fx.binary(Equal, set_bit, one);
        let active = fx.binary(LogicalAnd, in_range, set);
        // Read from an active lane only: an inactive one's value is indeterminate.
        let source = fx.select(active, lane, lowest);
        let there = fx.shuffle(local_index, source, u32_ty, out);
        let same = fx.binary(Equal, there, local_index);
        let ok = fx.binary(LogicalAnd, active, same);
        let contiguous = fx.vote(SubgroupOperation::All, ok, out);
        let complete_flag = fx.literal(Literal::U32(LANES_COMPLETE), out);
        let contiguous_flag = fx.literal(Literal::U32(LANES_CONTIGUOUS), out);
        let a = fx.select(complete, complete_flag, zero);
        let b = fx.select(contiguous, contiguous_flag, zero);
        let flags = fx.binary(BinaryOperator::InclusiveOr, a, b);
        (mask, flags)
    }
}
