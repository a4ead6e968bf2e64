//! Counting through one sink: a site says what it counts ([`Share`]s of counter words), and
//! [`Pass::count`] puts it where the walk is: outside every loop (at most once per invocation)
//! the elected lane adds the subgroup's totals straight to the 64-bit counters; inside a loop
//! (or a function called from one) each lane adds its share to its private counts, flushed
//! where it leaves the kernel (`flush.rs`). Also the votes before a branch.

use naga::{
    AtomicFunction, BinaryOperator, Block, Expression, GlobalVariable, Handle, Literal,
    SubgroupOperation, Type, UnaryOperator,
};

use super::Pass;
use super::elect::Election;
use super::emit::{Emitter, counter};
use super::globals::CounterBuffer;
use super::layout::Word;

/// What one count adds to its counter, and which lanes add it.
#[derive(Clone, Copy)]
pub(super) enum Share {
    /// The elected lane adds `value` for its subgroup.
    Elected(Handle<Expression>),
    /// The elected lane adds `value` when the condition (the same in every lane) holds.
    ElectedIf(Handle<Expression>, Handle<Expression>),
    /// Every active lane adds its own `value`; straight to the counters, the elected lane adds
    /// the subgroup's [`Total`] of it.
    EachLane(Handle<Expression>, Total),
}

/// A per-lane value and how its subgroup total is made.
type TotalOf = (Handle<Expression>, Total);

/// How the subgroup's total of a per-lane value is made.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Total {
    /// The value is 1 in every lane: the total is the active lanes (a ballot).
    ActiveLanes,
    /// `subgroupAdd(value)`.
    Sum,
}

/// An `if` counted from its vote: its branch, its condition, and the accept and reject blocks
/// whose counts the vote gives (each where it has code and is counted there).
#[derive(Clone, Copy, Debug)]
pub(super) struct VotedIf {
    pub branch: usize,
    pub condition: Handle<Expression>,
    pub sides: [Option<usize>; 2],
}

impl Pass<'_> {
    /// The sink: makes `counts` where the walk is (see the module notes). Without subgroups
    /// every invocation is its own subgroup of one: it adds its [`Share::Elected`] counts to its
    /// private counts, and active lanes and branch counts are not measured.
    pub(super) fn count(&self, fx: &mut Emitter<'_>, counts: &[(Word, Share)], out: &mut Block) {
        self.count_bounded(fx, counts, self.wide.direct, out);
    }

    /// [`Self::count`], with `wide` saying whether a count made straight to the counters may
    /// wrap their low word (a hoisted loop's counts are trips, bounded by the loop cap, not 1).
    pub(super) fn count_bounded(
        &self,
        fx: &mut Emitter<'_>,
        counts: &[(Word, Share)],
        wide: bool,
        out: &mut Block,
    ) {
        let local = self.g.local;
        if !self.opts.subgroups {
            for &(word, share) in counts {
                if let Share::Elected(value) = share {
                    local_add(fx, local, word, value, out);
                }
            }
            return;
        }
        let Election { elected, active } = self.election(fx, out);
        if self.at.hot {
            for &(word, share) in counts {
                match share {
                    Share::Elected(value) => local_add_if(fx, local, word, elected, value, out),
                    Share::ElectedIf(condition, value) => {
                        let both = fx.binary(BinaryOperator::LogicalAnd, elected, condition);
                        local_add_if(fx, local, word, both, value, out);
                    }
                    Share::EachLane(value, _) => local_add(fx, local, word, value, out),
                }
            }
            return;
        }
        // Each subgroup total once, made by every lane before the elected one adds them.
        let mut totals: Vec<(TotalOf, Handle<Expression>)> = Vec::new();
        for &(_, share) in counts {
            if let Share::EachLane(value, how) = share
                && !totals.iter().any(|&(key, _)| key == (value, how))
            {
                let total = match how {
                    Total::ActiveLanes => fx.lanes_of(active),
                    Total::Sum => fx.reduce(SubgroupOperation::Add, value, self.g.u32_ty, out),
                };
                totals.push(((value, how), total));
            }
        }
        let counters = self.g.counters;
        let add = fx.nested(out, |fx, b| {
            for &(word, share) in counts {
                match share {
                    Share::Elected(value) => add_count(fx, counters, wide, word, value, b),
                    Share::ElectedIf(condition, value) => {
                        let add =
                            fx.nested(b, |fx, b| add_count(fx, counters, wide, word, value, b));
                        fx.if_then(condition, add, b);
                    }
                    Share::EachLane(value, how) => {
                        let (_, total) = *totals
                            .iter()
                            .find(|&&(key, _)| key == (value, how))
                            .expect("every total is made above");
                        add_count(fx, counters, wide, word, total, b);
                    }
                }
            }
        });
        fx.if_then(elected, add, out);
    }

    /// Block entry: 1 execution, and the active lanes (1 per lane).
    pub(super) fn count_block(&self, fx: &mut Emitter<'_>, block: usize, out: &mut Block) {
        let one = fx.literal(Literal::U32(1), out);
        let counts = [
            (Word::Block(block, 0), Share::Elected(one)),
            (
                Word::Block(block, 2),
                Share::EachLane(one, Total::ActiveLanes),
            ),
        ];
        self.count(fx, &counts, out);
    }

    /// Before an `if`: its vote, 1 evaluation and 1 divergent one when some lanes take each
    /// side; and in a loop (`sides`: the accept and reject blocks it counts, each where it has
    /// code) the sides' counts derived from it. A side ran in the subgroup when some lane took
    /// it, and each lane that took it adds its 1 to the active lanes: the same figures as a
    /// count at each side's entry where the lanes that take a side run it together, for one
    /// election instead of three. Returns the election and the ballot of the condition.
    pub(super) fn count_if_and_sides(
        &self,
        fx: &mut Emitter<'_>,
        vote: VotedIf,
        out: &mut Block,
    ) -> (Election, Handle<Expression>) {
        let VotedIf {
            branch,
            condition,
            sides,
        } = vote;
        let (any, not_all, taken) = self.vote_if(fx, condition, out);
        let not_taken = fx.unary(UnaryOperator::LogicalNot, condition);
        let divergent = fx.binary(BinaryOperator::LogicalAnd, any, not_all);
        let (zero, one) = (
            fx.literal(Literal::U32(0), out),
            fx.literal(Literal::U32(1), out),
        );
        let mut counts = vec![
            (Word::Branch(branch, 0), Share::Elected(one)),
            (Word::Branch(branch, 2), Share::ElectedIf(divergent, one)),
        ];
        for (site, (ran, took)) in sides
            .into_iter()
            .zip([(any, condition), (not_all, not_taken)])
        {
            if let Some(block) = site {
                let mine = fx.select(took, one, zero);
                counts.push((Word::Block(block, 0), Share::ElectedIf(ran, one)));
                counts.push((Word::Block(block, 2), Share::EachLane(mine, Total::Sum)));
            }
        }
        self.count(fx, &counts, out);
        (self.election(fx, out), taken)
    }

    /// The vote on an `if`'s condition among the lanes that reach it, from one ballot of it
    /// compared with the election's: whether some lane takes the accept side, whether some lane
    /// takes the reject side, and the ballot.
    fn vote_if(
        &self,
        fx: &mut Emitter<'_>,
        condition: Handle<Expression>,
        out: &mut Block,
    ) -> (Handle<Expression>, Handle<Expression>, Handle<Expression>) {
        let Election { active, .. } = self.election(fx, out);
        let taken = fx.ballot_of(condition, out);
        let [none, all] = [None, Some(active)].map(|other| fx.ballots_equal(taken, other, out));
        let [any, not_all] = [none, all].map(|expr| fx.unary(UnaryOperator::LogicalNot, expr));
        (any, not_all, taken)
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
                let first = fx.broadcast_first(selector, ty, out);
                let same = fx.binary(BinaryOperator::Equal, selector, first);
                let all = fx.vote(SubgroupOperation::All, same, out);
                fx.unary(UnaryOperator::LogicalNot, all)
            }
            None => fx.literal(Literal::Bool(false), out),
        };
        self.count_branch(fx, branch, divergent, out);
    }

    /// 1 evaluation, and 1 divergent evaluation when `divergent`.
    fn count_branch(
        &self,
        fx: &mut Emitter<'_>,
        branch: usize,
        divergent: Handle<Expression>,
        out: &mut Block,
    ) {
        let one = fx.literal(Literal::U32(1), out);
        let counts = [
            (Word::Branch(branch, 0), Share::Elected(one)),
            (Word::Branch(branch, 2), Share::ElectedIf(divergent, one)),
        ];
        self.count(fx, &counts, out);
    }
}

/// Adds `value` to the counter pair at `word`: with [`add64`] where the count may wrap its low
/// word (`wide`), else with a plain `atomicAdd` whose result nothing waits for.
pub(super) fn add_count(
    fx: &mut Emitter<'_>,
    counters: CounterBuffer,
    wide: bool,
    word: Word,
    value: Handle<Expression>,
    out: &mut Block,
) {
    if wide {
        add64(fx, counters, word, value, out);
    } else {
        let pointer = counter(fx, counters, word, out);
        fx.atomic(pointer, AtomicFunction::Add, value, out);
    }
}

/// 64-bit add of `value` (a `u32`) to the pair whose low word is `word` (the high word
/// follows): `old = atomicAdd(&lo, v); if old + v < v { atomicAdd(&hi, 1u); }`.
pub(super) fn add64(
    fx: &mut Emitter<'_>,
    counters: CounterBuffer,
    word: Word,
    value: Handle<Expression>,
    out: &mut Block,
) {
    let pointer = counter(fx, counters, word, out);
    let old = fx.atomic_add(pointer, value, out);
    carry(fx, counters, word, (old, value), out);
}

/// `if old + added < added { atomicAdd(&hi, 1u); }`: the carry into the high word of the pair
/// at `word`, after an add of `added` found `old` in its low word.
pub(super) fn carry(
    fx: &mut Emitter<'_>,
    counters: CounterBuffer,
    word: Word,
    (old, added): (Handle<Expression>, Handle<Expression>),
    out: &mut Block,
) {
    let sum = fx.binary(BinaryOperator::Add, old, added);
    let wrapped = fx.binary(BinaryOperator::Less, sum, added);
    let carry = fx.nested(out, |fx, b| {
        let one = fx.literal(Literal::U32(1), b);
        let pointer = counter(fx, counters, word.high(), b);
        fx.atomic(pointer, AtomicFunction::Add, one, b);
    });
    fx.if_then(wrapped, carry, out);
}

/// `divlab_local[word] += select(0u, value, condition)`. A `select`, not an `if`: a branch at
/// every block entry of a loop would itself diverge.
fn local_add_if(
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
fn local_add(
    fx: &mut Emitter<'_>,
    local: Handle<GlobalVariable>,
    word: Word,
    value: Handle<Expression>,
    out: &mut Block,
) {
    let base = fx.global(local, out);
    let pointer = fx.member(base, 0);
    fx.local_patches.push((pointer, word));
    let old = fx.load(pointer);
    let new = fx.binary(BinaryOperator::Add, old, value);
    fx.store(pointer, new, out);
}
