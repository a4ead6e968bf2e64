//! The `Emitter`: new IR appended to the function being instrumented, with the vocabulary the
//! pass speaks (`ballot`, `atomic_add`, `broadcast_first`, `reduce`, ...), so no other file
//! spells out an IR sequence.
//!
//! Expressions that need an `Emit` are appended back to back and covered by one `Emit`
//! statement ([`naga::proc::Emitter`]), closed before any statement and before any expression
//! that must not be emitted (literals, variables, statement results).

use naga::{
    AtomicFunction, BinaryOperator, Block, CollectiveOperation, Expression, Function, GatherMode,
    GlobalVariable, Handle, Literal, LocalVariable, MathFunction, Span, Statement,
    SubgroupOperation, Type, UnaryOperator,
};

use super::globals::CounterBuffer;
use super::layout::Word;

/// An expression of the function being instrumented.
type Expr = Handle<Expression>;
/// A type of the module.
type Ty = Handle<Type>;

/// Counter pointers (`AccessIndex` expressions) and the words they must point at.
pub(super) type Patches = Vec<(Handle<Expression>, Word)>;

/// Appends IR to one function.
pub(super) struct Emitter<'f> {
    pub function: &'f mut Function,
    emitter: naga::proc::Emitter,
    /// The span new expressions and statements get: the statement being instrumented.
    pub span: Span,
    pub u32_ty: Handle<Type>,
    pub bool_ty: Handle<Type>,
    /// `&divlab_counters[word]` pointers, whose index is known once every site is numbered.
    pub patches: Patches,
    /// `&divlab_local[word]` pointers, likewise.
    pub local_patches: Patches,
    /// The words of a ballot that can hold lanes ([`super::InstrumentOptions::ballot_words`]):
    /// the others are zero, and the ballot arithmetic leaves them out.
    pub ballot_words: u32,
}

impl<'f> Emitter<'f> {
    pub fn new(function: &'f mut Function, u32_ty: Handle<Type>, bool_ty: Handle<Type>) -> Self {
        Self {
            function,
            emitter: naga::proc::Emitter::default(),
            span: Span::UNDEFINED,
            u32_ty,
            bool_ty,
            patches: Vec::new(),
            local_patches: Vec::new(),
            ballot_words: 4,
        }
    }

    /// Closes the pending `Emit` run into `out`.
    pub fn flush(&mut self, out: &mut Block) {
        if self.emitter.is_running()
            && let Some((emit, _)) = self.emitter.finish(&self.function.expressions)
        {
            out.push(emit, self.span);
        }
    }

    /// An expression that needs an `Emit`.
    pub fn emitted(&mut self, expr: Expression) -> Handle<Expression> {
        debug_assert!(!expr.needs_pre_emit());
        if !self.emitter.is_running() {
            self.emitter.start(&self.function.expressions);
        }
        self.function.expressions.append(expr, self.span)
    }

    /// An expression that must not be emitted: a literal, a variable, a statement's result.
    pub fn unemitted(&mut self, expr: Expression, out: &mut Block) -> Handle<Expression> {
        self.flush(out);
        self.function.expressions.append(expr, self.span)
    }

    pub fn statement(&mut self, statement: Statement, out: &mut Block) {
        self.flush(out);
        out.push(statement, self.span);
    }

    /// A block built by `build`, after flushing `out` so the pending run stays in `out`.
    pub fn nested(&mut self, out: &mut Block, build: impl FnOnce(&mut Self, &mut Block)) -> Block {
        self.flush(out);
        let mut block = Block::new();
        build(self, &mut block);
        self.flush(&mut block);
        block
    }

    /// `if condition { accept }`.
    pub fn if_then(&mut self, condition: Handle<Expression>, accept: Block, out: &mut Block) {
        self.statement(
            Statement::If {
                condition,
                accept,
                reject: Block::new(),
            },
            out,
        );
    }

    pub fn literal(&mut self, literal: Literal, out: &mut Block) -> Handle<Expression> {
        self.unemitted(Expression::Literal(literal), out)
    }

    /// `left op right`.
    pub fn binary(
        &mut self,
        op: BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Handle<Expression> {
        self.emitted(Expression::Binary { op, left, right })
    }

    /// `op expr`, emitted.
    pub fn unary(&mut self, op: UnaryOperator, expr: Handle<Expression>) -> Handle<Expression> {
        self.emitted(Expression::Unary { op, expr })
    }

    /// `&global`.
    pub fn global(&mut self, g: Handle<GlobalVariable>, out: &mut Block) -> Handle<Expression> {
        self.unemitted(Expression::GlobalVariable(g), out)
    }

    /// `&variable`.
    pub fn local(&mut self, v: Handle<LocalVariable>, out: &mut Block) -> Handle<Expression> {
        self.unemitted(Expression::LocalVariable(v), out)
    }

    /// `*pointer`.
    pub fn load(&mut self, pointer: Handle<Expression>) -> Handle<Expression> {
        self.emitted(Expression::Load { pointer })
    }

    /// `base[index]` with a constant index.
    pub fn member(&mut self, base: Handle<Expression>, index: u32) -> Handle<Expression> {
        self.emitted(Expression::AccessIndex { base, index })
    }

    /// `*pointer = value`.
    pub fn store(
        &mut self,
        pointer: Handle<Expression>,
        value: Handle<Expression>,
        out: &mut Block,
    ) {
        self.statement(Statement::Store { pointer, value }, out);
    }

    /// A new function-local `var name: ty` (no initializer).
    pub fn new_local(&mut self, name: String, ty: Handle<Type>) -> Handle<LocalVariable> {
        self.function.local_variables.append(
            LocalVariable {
                name: Some(name),
                ty,
                init: None,
            },
            self.span,
        )
    }

    /// `*pointer += 1u` for a `u32` variable; returns the new value.
    pub fn increment(
        &mut self,
        pointer: Handle<Expression>,
        out: &mut Block,
    ) -> Handle<Expression> {
        let before = self.load(pointer);
        let one = self.literal(Literal::U32(1), out);
        let after = self.binary(BinaryOperator::Add, before, one);
        self.store(pointer, after, out);
        after
    }

    /// `atomicOp(pointer, value)`, its result unused.
    pub fn atomic(
        &mut self,
        pointer: Handle<Expression>,
        fun: AtomicFunction,
        value: Handle<Expression>,
        out: &mut Block,
    ) {
        let atomic = Statement::Atomic {
            pointer,
            fun,
            value,
            result: None,
        };
        self.statement(atomic, out);
    }

    /// `atomicAdd(pointer, value)`: the value before.
    pub fn atomic_add(
        &mut self,
        pointer: Handle<Expression>,
        value: Handle<Expression>,
        out: &mut Block,
    ) -> Handle<Expression> {
        let ty = self.u32_ty;
        let old = self.unemitted(
            Expression::AtomicResult {
                ty,
                comparison: false,
            },
            out,
        );
        let atomic = Statement::Atomic {
            pointer,
            fun: AtomicFunction::Add,
            value,
            result: Some(old),
        };
        self.statement(atomic, out);
        old
    }

    /// `subgroupBallot(true)`: the active lanes, as a `vec4<u32>` of bits.
    pub fn ballot(&mut self, out: &mut Block) -> Handle<Expression> {
        let yes = self.literal(Literal::Bool(true), out);
        self.ballot_of(yes, out)
    }

    /// `subgroupBallot(predicate)`: the active lanes where it holds.
    pub fn ballot_of(&mut self, predicate: Expr, out: &mut Block) -> Expr {
        let ballot = self.unemitted(Expression::SubgroupBallotResult, out);
        let statement = Statement::SubgroupBallot {
            result: ballot,
            predicate: Some(predicate),
        };
        self.statement(statement, out);
        ballot
    }

    /// The lowest lane set in `ballot` (a `vec4<u32>`, not all zero): the first trailing bit of
    /// its first non-zero word, plus the word's first lane.
    pub fn lowest_lane(&mut self, ballot: Expr, out: &mut Block) -> Expr {
        let zero = self.literal(Literal::U32(0), out);
        let mut lowest = None;
        for index in (0..self.ballot_words).rev() {
            let word = self.member(ballot, index);
            let bit = self.emitted(Expression::Math {
                fun: MathFunction::FirstTrailingBit,
                arg: word,
                arg1: None,
                arg2: None,
                arg3: None,
            });
            let offset = self.literal(Literal::U32(32 * index), out);
            let lane = self.binary(BinaryOperator::Add, bit, offset);
            lowest = Some(match lowest {
                None => lane,
                Some(higher) => {
                    let set = self.binary(BinaryOperator::NotEqual, word, zero);
                    self.select(set, lane, higher)
                }
            });
        }
        lowest.expect("a ballot has a word")
    }

    /// Whether two ballots hold the same lanes, or (`other` absent) `ballot` holds none:
    /// `(a.x ^ b.x) | … | (a.w ^ b.w) == 0`, word by word.
    pub fn ballots_equal(&mut self, ballot: Expr, other: Option<Expr>, out: &mut Block) -> Expr {
        let mut bits = None;
        for index in 0..self.ballot_words {
            let mut word = self.member(ballot, index);
            if let Some(other) = other {
                let theirs = self.member(other, index);
                word = self.binary(BinaryOperator::ExclusiveOr, word, theirs);
            }
            bits = Some(match bits {
                None => word,
                Some(before) => self.binary(BinaryOperator::InclusiveOr, before, word),
            });
        }
        let zero = self.literal(Literal::U32(0), out);
        self.binary(
            BinaryOperator::Equal,
            bits.expect("a ballot has a word"),
            zero,
        )
    }

    /// The lanes of `ballot` counted.
    pub fn lanes_of(&mut self, ballot: Expr) -> Expr {
        let bits = self.emitted(Expression::Math {
            fun: MathFunction::CountOneBits,
            arg: ballot,
            arg1: None,
            arg2: None,
            arg3: None,
        });
        let mut lanes = self.member(bits, 0);
        for index in 1..self.ballot_words {
            let word = self.member(bits, index);
            lanes = self.binary(BinaryOperator::Add, lanes, word);
        }
        lanes
    }

    /// `subgroupBroadcastFirst(argument)`, of type `ty`.
    pub fn broadcast_first(&mut self, argument: Expr, ty: Ty, out: &mut Block) -> Expr {
        self.subgroup_op(ty, out, |result| Statement::SubgroupGather {
            mode: GatherMode::BroadcastFirst,
            argument,
            result,
        })
    }

    /// `subgroupShuffle(argument, lane)`, of type `ty`.
    pub fn shuffle(&mut self, argument: Expr, lane: Expr, ty: Ty, out: &mut Block) -> Expr {
        self.subgroup_op(ty, out, |result| Statement::SubgroupGather {
            mode: GatherMode::Shuffle(lane),
            argument,
            result,
        })
    }

    /// `select(reject, accept, condition)`.
    pub fn select(&mut self, condition: Expr, accept: Expr, reject: Expr) -> Expr {
        self.emitted(Expression::Select {
            condition,
            accept,
            reject,
        })
    }

    /// `op` (`subgroupAdd`, `subgroupAll`, ...) over the active lanes of `arg`, of type `ty`.
    pub fn reduce(&mut self, op: SubgroupOperation, arg: Expr, ty: Ty, out: &mut Block) -> Expr {
        self.subgroup_op(ty, out, |result| Statement::SubgroupCollectiveOperation {
            op,
            collective_op: CollectiveOperation::Reduce,
            argument: arg,
            result,
        })
    }

    /// `op`'s exclusive scan (`subgroupExclusiveAdd`, ...) over the active lanes of `arg`.
    pub fn scan(&mut self, op: SubgroupOperation, arg: Expr, ty: Ty, out: &mut Block) -> Expr {
        self.subgroup_op(ty, out, |result| Statement::SubgroupCollectiveOperation {
            op,
            collective_op: CollectiveOperation::ExclusiveScan,
            argument: arg,
            result,
        })
    }

    /// The statement `operation` makes of its result, of type `ty`: a subgroup operation.
    fn subgroup_op(
        &mut self,
        ty: Ty,
        out: &mut Block,
        operation: impl FnOnce(Expr) -> Statement,
    ) -> Expr {
        let result = self.unemitted(Expression::SubgroupOperationResult { ty }, out);
        self.statement(operation(result), out);
        result
    }

    /// `subgroupAll`/`subgroupAny` of a bool.
    pub fn vote(
        &mut self,
        op: SubgroupOperation,
        argument: Handle<Expression>,
        out: &mut Block,
    ) -> Handle<Expression> {
        let ty = self.bool_ty;
        self.reduce(op, argument, ty, out)
    }
}

/// `&divlab_counters[divlab_stripe + word]`: the word in the invocation's stripe, `word`'s
/// index (a literal) patched once the layout is known.
pub(super) fn counter(
    fx: &mut Emitter<'_>,
    counters: CounterBuffer,
    word: Word,
    out: &mut Block,
) -> Handle<Expression> {
    let base = fx.global(counters.buffer, out);
    let stripe_pointer = fx.global(counters.stripe, out);
    let offset = fx.literal(Literal::U32(0), out);
    fx.patches.push((offset, word));
    let stripe = fx.load(stripe_pointer);
    let index = fx.binary(BinaryOperator::Add, stripe, offset);
    fx.emitted(Expression::Access { base, index })
}
