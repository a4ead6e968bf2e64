//! The exit flush: where an invocation leaves the kernel, its private counts (the sites in
//! loops) go into the counters, summed over the subgroup.

use naga::{
    AtomicFunction, BinaryOperator, Block, Expression, Handle, Literal, MathFunction, Module,
    Statement, SubgroupOperation,
};

use super::Pass;
use super::count::{add_count, carry};
use super::emit::{Emitter, counter};
use super::layout::Word;
use super::walk::Patched;

impl Pass<'_> {
    /// Where the invocation leaves the kernel (each `return` of the entry point, and its end):
    /// a call of `divlab_flush`, whose body ([`Self::write_flush`]) is written once every
    /// private count is known.
    pub(super) fn flush(&self, fx: &mut Emitter<'_>, out: &mut Block) {
        let call = Statement::Call {
            function: self.g.flush_fn,
            arguments: Vec::new(),
            result: None,
        };
        fx.statement(call, out);
    }

    /// Writes `divlab_flush` for the private counts `slots` (`slots[i]` counts into that
    /// counter); returns its pointers to patch.
    pub(super) fn write_flush(&self, module: &mut Module, slots: &[Word]) -> Patched {
        let function = &mut module.functions[self.g.flush_fn];
        let mut fx = Emitter::new(function, self.g.u32_ty, self.g.bool_ty);
        fx.ballot_words = self.opts.ballot_words;
        let mut body = Block::new();
        if self.opts.probe_loop_limit && !self.sites.loops.is_empty() {
            self.probe_loop_limit(&mut fx, &mut body);
        }
        self.flush_body(&mut fx, slots, &mut body);
        fx.function.body = body;
        Patched {
            counters: fx.patches,
            local: fx.local_patches,
        }
    }

    /// `var divlab_probe = 0u; loop { divlab_probe += 1u; if divlab_probe >=
    /// min(arrayLength(&divlab_counters), 2u) { break; } } if divlab_probe < 2u {
    /// atomicMax(&LOOP_LIMIT_WORD, 1u); }`: two passes, unless llvmpipe's loop limit ran out
    /// earlier in the subgroup, after which every loop it enters ends after one. The bound
    /// is read from the buffer so that no compiler unrolls the loop away.
    fn probe_loop_limit(&self, fx: &mut Emitter<'_>, out: &mut Block) {
        let probe = fx.new_local("divlab_probe".to_owned(), fx.u32_ty);
        let pointer = fx.local(probe, out);
        let (zero, two) = (
            fx.literal(Literal::U32(0), out),
            fx.literal(Literal::U32(2), out),
        );
        fx.store(pointer, zero, out);
        let counters = self.g.counters;
        let body = fx.nested(out, |fx, b| {
            let pointer = fx.local(probe, b);
            let passes = fx.increment(pointer, b);
            let buffer = fx.global(counters.buffer, b);
            let length = fx.emitted(Expression::ArrayLength(buffer));
            let bound = fx.emitted(Expression::Math {
                fun: MathFunction::Min,
                arg: length,
                arg1: Some(two),
                arg2: None,
                arg3: None,
            });
            let done = fx.binary(BinaryOperator::GreaterEqual, passes, bound);
            let stop = fx.nested(b, |fx, b| fx.statement(Statement::Break, b));
            fx.if_then(done, stop, b);
        });
        let probe_loop = Statement::Loop {
            body,
            continuing: Block::new(),
            break_if: None,
        };
        fx.statement(probe_loop, out);
        let passes = fx.load(pointer);
        let cut = fx.binary(BinaryOperator::Less, passes, two);
        let record = fx.nested(out, |fx, b| {
            let word = counter(fx, counters, Word::LoopLimit, b);
            let one = fx.literal(Literal::U32(1), b);
            fx.atomic(word, AtomicFunction::Max, one, b);
        });
        fx.if_then(cut, record, out);
    }

    /// `divlab_flush`: each private count, summed over the subgroup's active lanes, added by
    /// the elected lane to its counter (without subgroups each invocation adds its own). A vote
    /// skips a count that is 0 in every lane, as most are (blocks this subgroup never ran). The
    /// slots are spelled out, not looped over: indexed by constants only, the private counts can
    /// live in registers. Where the counts may wrap a low word ([`super::Wide`]), every add
    /// keeps the value `atomicAdd` returned, and the carries are taken after the last add: the
    /// invocation waits for the atomics once, not once per counter.
    fn flush_body(&self, fx: &mut Emitter<'_>, words: &[Word], out: &mut Block) {
        let election = self.opts.subgroups.then(|| self.elect_lanes(fx, out));
        let elected = election.map(|e| e.elected);
        if let Some(election) = election.filter(|_| counts_exits(&self.opts, words)) {
            // The lanes whose private counts this adds: the host compares them with the lanes
            // that entered ([`super::Instrumented::exits_counted`]).
            let count = fx.nested(out, |fx, b| {
                let lanes = fx.lanes_of(election.active);
                add_count(fx, self.g.counters, false, Word::Exits, lanes, b);
            });
            fx.if_then(election.elected, count, out);
        }
        let mut pending = Vec::new();
        for (slot, &word) in words.iter().enumerate() {
            let base = fx.global(self.g.local, out);
            let pointer = fx.member(base, slot as u32);
            let mine = fx.load(pointer);
            let zero = fx.literal(Literal::U32(0), out);
            let some = fx.binary(BinaryOperator::NotEqual, mine, zero);
            let kept = self.wide.flushed.then(|| {
                let [old, added] = ["old", "added"].map(|what| {
                    let variable = fx.new_local(format!("divlab_{what}{slot}"), fx.u32_ty);
                    let pointer = fx.local(variable, out);
                    fx.store(pointer, zero, out);
                    pointer
                });
                pending.push((word, old, added));
                (old, added)
            });
            let Some(elected) = elected else {
                let add = fx.nested(out, |fx, b| self.flush_add(fx, word, mine, kept, b));
                fx.if_then(some, add, out);
                continue;
            };
            let any = fx.vote(SubgroupOperation::Any, some, out);
            let accept = fx.nested(out, |fx, b| {
                let total = fx.reduce(SubgroupOperation::Add, mine, fx.u32_ty, b);
                let add = fx.nested(b, |fx, b| self.flush_add(fx, word, total, kept, b));
                fx.if_then(elected, add, b);
            });
            fx.if_then(any, accept, out);
        }
        if !pending.is_empty() {
            let counters = self.g.counters;
            let carries = fx.nested(out, |fx, b| {
                for (word, old, added) in pending {
                    let added_then = (fx.load(old), fx.load(added));
                    carry(fx, counters, word, added_then, b);
                }
            });
            match elected {
                Some(elected) => fx.if_then(elected, carries, out),
                None => fx.statement(Statement::Block(carries), out),
            }
        }
        fx.flush(out);
    }

    /// One flushed add of `value` to the counter at `word`; with `kept` (the counts may wrap),
    /// its old value and `value` are stored there for the carry.
    fn flush_add(
        &self,
        fx: &mut Emitter<'_>,
        word: Word,
        value: Handle<Expression>,
        kept: Option<(Handle<Expression>, Handle<Expression>)>,
        out: &mut Block,
    ) {
        let counters = self.g.counters;
        let Some((old_pointer, added_pointer)) = kept else {
            return add_count(fx, counters, false, word, value, out);
        };
        let pointer = counter(fx, counters, word, out);
        let old = fx.atomic_add(pointer, value, out);
        fx.store(old_pointer, old, out);
        fx.store(added_pointer, value, out);
    }
}

/// Whether the exit flush counts the lanes it adds the private counts `slots` for: with
/// subgroups, where there are private counts to leave out.
pub(super) fn counts_exits(opts: &super::InstrumentOptions, slots: &[Word]) -> bool {
    opts.subgroups && !slots.is_empty()
}
