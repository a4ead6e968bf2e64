//! Hoisted loops: a `for`/`while` that can leave only by its test counts nothing per trip;
//! after it, each lane's trip counter gives its body's and test's counts.

use naga::{
    BinaryOperator, Block, Expression, Handle, Literal, LocalVariable, Statement,
    SubgroupOperation, UnaryOperator,
};

use super::Pass;
use super::count::{Share, Total};
use super::emit::Emitter;
use super::layout::Word;

impl Pass<'_> {
    /// After a hoisted loop (`control::hoistable`), every count its trips would have made, from each
    /// lane's exit-test evaluations `t` (its own trip counter): the body (and a counted `continuing`)
    /// ran `t - 1` times in the lane and `max(t) - 1` times in the subgroup; the test was
    /// evaluated `max(t)` times, divergent on all but the last of the distinct `t`s; the `break`
    /// ran once per distinct `t`. Exact when the lanes that enter together run their trips
    /// together (they leave together here: the loop has no other exit), and free of any
    /// subgroup operation inside the loop, where it cost the study's switch kernel most of its
    /// instrumented time.
    pub(super) fn count_hoisted(
        &self,
        fx: &mut Emitter<'_>,
        lp: usize,
        trips: Handle<LocalVariable>,
        blocks: [Option<usize>; 2],
        out: &mut Block,
    ) {
        let exit = self.sites.loops[lp]
            .exit_test
            .expect("a hoisted loop has an exit test");
        let leave = self.sites.exit_break(exit);
        let pointer = fx.local(trips, out);
        let tests = fx.load(pointer);
        let most = fx.reduce(SubgroupOperation::Max, tests, self.g.u32_ty, out);
        let distinct = self.distinct(fx, tests, out);
        let one = fx.literal(Literal::U32(1), out);
        let ran = fx.binary(BinaryOperator::Subtract, tests, one);
        let most_ran = fx.binary(BinaryOperator::Subtract, most, one);
        let splits = fx.binary(BinaryOperator::Subtract, distinct, one);
        let mut counts = Vec::new();
        for block in blocks.into_iter().flatten() {
            counts.push((Word::Block(block, 0), Share::Elected(most_ran)));
            counts.push((Word::Block(block, 2), Share::EachLane(ran, Total::Sum)));
        }
        counts.extend([
            (Word::Branch(exit, 0), Share::Elected(most)),
            (Word::Branch(exit, 2), Share::Elected(splits)),
            (Word::Block(leave, 0), Share::Elected(distinct)),
            (
                Word::Block(leave, 2),
                Share::EachLane(one, Total::ActiveLanes),
            ),
        ]);
        self.count_bounded(fx, &counts, self.wide.flushed, out);
    }

    /// How many distinct values `value` has over the subgroup's active lanes: one round per
    /// value, each taking out the lanes that hold the smallest one left. Bounded by the largest
    /// subgroup size (128) plus the round that finds none left; each round adds 1 to the
    /// invocation's loop trips (`cap.rs`) but never breaks at the cap.
    fn distinct(
        &self,
        fx: &mut Emitter<'_>,
        value: Handle<Expression>,
        out: &mut Block,
    ) -> Handle<Expression> {
        let (u32_ty, bool_ty) = (self.g.u32_ty, self.g.bool_ty);
        let var = |fx: &mut Emitter<'_>, name: &str, ty, init: Literal, out: &mut Block| {
            let variable = fx.new_local(name.to_owned(), ty);
            let pointer = fx.unemitted(Expression::LocalVariable(variable), out);
            let value = fx.literal(init, out);
            fx.statement(Statement::Store { pointer, value }, out);
            pointer
        };
        let left = var(fx, "divlab_left", bool_ty, Literal::Bool(true), out);
        let count = var(fx, "divlab_distinct", u32_ty, Literal::U32(0), out);
        let round = var(fx, "divlab_round", u32_ty, Literal::U32(0), out);
        let trips = self.g.trips;
        let body = fx.nested(out, |fx, b| {
            // Each round is a loop iteration too: counted with the kernel's toward the cap, as
            // llvmpipe counts every loop of an invocation toward its silent limit.
            let all_trips = fx.global(trips, b);
            fx.increment(all_trips, b);
            let rounds = fx.increment(round, b);
            let bound = fx.literal(Literal::U32(129), b);
            let over = fx.binary(BinaryOperator::Greater, rounds, bound);
            let stop = fx.nested(b, |fx, b| fx.statement(Statement::Break, b));
            fx.if_then(over, stop, b);
            let mine = fx.emitted(Expression::Load { pointer: left });
            let any = fx.vote(SubgroupOperation::Any, mine, b);
            let none = fx.emitted(Expression::Unary {
                op: UnaryOperator::LogicalNot,
                expr: any,
            });
            let stop = fx.nested(b, |fx, b| fx.statement(Statement::Break, b));
            fx.if_then(none, stop, b);
            let max = fx.literal(Literal::U32(u32::MAX), b);
            let key = fx.emitted(Expression::Select {
                condition: mine,
                accept: value,
                reject: max,
            });
            let least = fx.reduce(SubgroupOperation::Min, key, u32_ty, b);
            fx.increment(count, b);
            let other = fx.binary(BinaryOperator::NotEqual, value, least);
            let still = fx.binary(BinaryOperator::LogicalAnd, mine, other);
            fx.statement(
                Statement::Store {
                    pointer: left,
                    value: still,
                },
                b,
            );
        });
        fx.statement(
            Statement::Loop {
                body,
                continuing: Block::new(),
                break_if: None,
            },
            out,
        );
        fx.emitted(Expression::Load { pointer: count })
    }
}
