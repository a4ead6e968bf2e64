//! Counting: the votes before a branch, and the counts a site makes, which go straight to
//! the counters outside loops and to the invocation's private counts inside them.

use naga::{
    AtomicFunction, BinaryOperator, Block, Expression, GatherMode, GlobalVariable, Handle, Literal,
    Statement, SubgroupOperation, Type, UnaryOperator,
};

use super::Pass;
use super::emit::Emitter;
use super::layout::Word;

impl Pass<'_> {
    /// Block entry. Where it runs at most once per invocation (outside every loop), the elected
    /// lane adds 1 execution and the subgroup's active lanes straight to the counters. Inside a
    /// loop, in the invocation's private counts (flushed where it leaves the kernel): every lane
    /// adds 1 to the block's active lanes and the elected lane 1 execution. Without subgroups
    /// every invocation adds 1 execution to its private count.
    pub(super) fn count_block(&self, fx: &mut Emitter<'_>, block: usize, out: &mut Block) {
        let local = self.g.local;
        if self.opts.subgroups && !self.at.hot {
            let lanes = fx.active_lanes(out);
            let elected = self.elect(fx, out);
            let counters = self.g.counters;
            let add = fx.nested(out, |fx, b| {
                let one = fx.literal(Literal::U32(1), b);
                add64(fx, counters, Word::Block(block, 0), one, b);
                add64(fx, counters, Word::Block(block, 2), lanes, b);
            });
            fx.if_then(elected, add, out);
            return;
        }
        if !self.opts.subgroups {
            let one = fx.literal(Literal::U32(1), out);
            local_add(fx, local, Word::Block(block, 0), one, out);
            return;
        }
        let elected = self.elect(fx, out);
        let one = fx.literal(Literal::U32(1), out);
        local_add(fx, local, Word::Block(block, 2), one, out);
        local_add_if(fx, local, Word::Block(block, 0), elected, one, out);
    }

    /// Before an `if`: divergent iff `subgroupAny(c) && !subgroupAll(c)`.
    pub(super) fn count_if(
        &self,
        fx: &mut Emitter<'_>,
        branch: usize,
        condition: Handle<Expression>,
        out: &mut Block,
    ) {
        let all = fx.vote(SubgroupOperation::All, condition, out);
        let any = fx.vote(SubgroupOperation::Any, condition, out);
        let not_all = fx.emitted(Expression::Unary {
            op: UnaryOperator::LogicalNot,
            expr: all,
        });
        let divergent = fx.emitted(Expression::Binary {
            op: BinaryOperator::LogicalAnd,
            left: any,
            right: not_all,
        });
        self.count_branch(fx, branch, divergent, out);
    }

    /// Before a `switch`: divergent iff `!subgroupAll(s == subgroupBroadcastFirst(s))`. A switch
    /// with only a `default` case cannot diverge (and its selector type is not at hand).
    pub(super) fn count_switch(
        &self,
        fx: &mut Emitter<'_>,
        branch: usize,
        selector: Handle<Expression>,
        ty: Option<Handle<Type>>,
        out: &mut Block,
    ) {
        let divergent = match ty {
            Some(ty) => {
                let first = fx.unemitted(Expression::SubgroupOperationResult { ty }, out);
                fx.statement(
                    Statement::SubgroupGather {
                        mode: GatherMode::BroadcastFirst,
                        argument: selector,
                        result: first,
                    },
                    out,
                );
                let same = fx.emitted(Expression::Binary {
                    op: BinaryOperator::Equal,
                    left: selector,
                    right: first,
                });
                let all = fx.vote(SubgroupOperation::All, same, out);
                fx.emitted(Expression::Unary {
                    op: UnaryOperator::LogicalNot,
                    expr: all,
                })
            }
            None => fx.literal(Literal::Bool(false), out),
        };
        self.count_branch(fx, branch, divergent, out);
    }

    /// The elected lane adds 1 evaluation, and 1 divergent evaluation when `divergent`.
    fn count_branch(
        &self,
        fx: &mut Emitter<'_>,
        branch: usize,
        divergent: Handle<Expression>,
        out: &mut Block,
    ) {
        let elected = self.elect(fx, out);
        let local = self.g.local;
        if !self.at.hot {
            let counters = self.g.counters;
            let add = fx.nested(out, |fx, b| {
                let one = fx.literal(Literal::U32(1), b);
                add64(fx, counters, Word::Branch(branch, 0), one, b);
                let diverged = fx.nested(b, |fx, b| {
                    add64(fx, counters, Word::Branch(branch, 2), one, b);
                });
                fx.if_then(divergent, diverged, b);
            });
            fx.if_then(elected, add, out);
            return;
        }
        let one = fx.literal(Literal::U32(1), out);
        local_add_if(fx, local, Word::Branch(branch, 0), elected, one, out);
        let both = fx.binary(BinaryOperator::LogicalAnd, elected, divergent);
        local_add_if(fx, local, Word::Branch(branch, 2), both, one, out);
    }
}

/// `&divlab_counters[word]`, its index patched once the layout is known.
pub(super) fn counter(
    fx: &mut Emitter<'_>,
    counters: Handle<GlobalVariable>,
    word: Word,
    out: &mut Block,
) -> Handle<Expression> {
    let base = fx.unemitted(Expression::GlobalVariable(counters), out);
    let pointer = fx.emitted(Expression::AccessIndex { base, index: 0 });
    fx.patches.push((pointer, word));
    pointer
}

/// 64-bit add of `value` (a `u32`) to the pair whose low word is `word` (the high word
/// follows): `old = atomicAdd(&lo, v); if old + v < v { atomicAdd(&hi, 1u); }`.
pub(super) fn add64(
    fx: &mut Emitter<'_>,
    counters: Handle<GlobalVariable>,
    word: Word,
    value: Handle<Expression>,
    out: &mut Block,
) {
    let pointer = counter(fx, counters, word, out);
    let old = fx.unemitted(
        Expression::AtomicResult {
            ty: fx.u32_ty,
            comparison: false,
        },
        out,
    );
    fx.statement(
        Statement::Atomic {
            pointer,
            fun: AtomicFunction::Add,
            value,
            result: Some(old),
        },
        out,
    );
    let sum = fx.binary(BinaryOperator::Add, old, value);
    let wrapped = fx.binary(BinaryOperator::Less, sum, value);
    let carry = fx.nested(out, |fx, b| {
        let one = fx.literal(Literal::U32(1), b);
        let pointer = counter(fx, counters, word.high(), b);
        fx.statement(
            Statement::Atomic {
                pointer,
                fun: AtomicFunction::Add,
                value: one,
                result: None,
            },
            b,
        );
    });
    fx.if_then(wrapped, carry, out);
}

/// `divlab_local[word] += select(0u, value, condition)`. A `select`, not an `if`: a branch at
/// every block entry of a loop would itself diverge.
pub(super) fn local_add_if(
    fx: &mut Emitter<'_>,
    local: Handle<GlobalVariable>,
    word: Word,
    condition: Handle<Expression>,
    value: Handle<Expression>,
    out: &mut Block,
) {
    let zero = fx.literal(Literal::U32(0), out);
    let mine = fx.emitted(Expression::Select {
        condition,
        accept: value,
        reject: zero,
    });
    local_add(fx, local, word, mine, out);
}

/// `divlab_local[word] += value`: the invocation's private count of a counter `word` (whose
/// private index is patched once the layout is known).
pub(super) fn local_add(
    fx: &mut Emitter<'_>,
    local: Handle<GlobalVariable>,
    word: Word,
    value: Handle<Expression>,
    out: &mut Block,
) {
    let base = fx.unemitted(Expression::GlobalVariable(local), out);
    let pointer = fx.emitted(Expression::AccessIndex { base, index: 0 });
    fx.local_patches.push((pointer, word));
    let old = fx.emitted(Expression::Load { pointer });
    let new = fx.emitted(Expression::Binary {
        op: BinaryOperator::Add,
        left: old,
        right: value,
    });
    fx.statement(
        Statement::Store {
            pointer,
            value: new,
        },
        out,
    );
}
