//! The exit flush: where an invocation leaves the kernel, its private counts (the sites in
//! loops) go into the counters, summed over the subgroup.

use naga::{BinaryOperator, Block, Literal, Module, Statement, SubgroupOperation};

use super::Pass;
use super::count::add64;
use super::emit::Emitter;
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
        let mut body = Block::new();
        self.flush_body(&mut fx, slots, &mut body);
        fx.function.body = body;
        Patched {
            counters: fx.patches,
            local: fx.local_patches,
        }
    }

    /// `divlab_flush`: each private count, summed over the subgroup's active lanes, added by
    /// the elected lane to its 64-bit counter (without subgroups each invocation adds its own).
    /// A vote skips a count that is 0 in every lane, as most are (blocks this subgroup never
    /// ran). The slots are spelled out, not looped over: indexed by constants only, the private
    /// counts can live in registers.
    fn flush_body(&self, fx: &mut Emitter<'_>, words: &[Word], out: &mut Block) {
        let (local, counters) = (self.g.local, self.g.counters);
        let elected = self.opts.subgroups.then(|| self.elect(fx, out));
        for (slot, &word) in words.iter().enumerate() {
            let base = fx.global(local, out);
            let pointer = fx.member(base, slot as u32);
            let mine = fx.load(pointer);
            let zero = fx.literal(Literal::U32(0), out);
            let some = fx.binary(BinaryOperator::NotEqual, mine, zero);
            let Some(elected) = elected else {
                let add = fx.nested(out, |fx, b| add64(fx, counters, word, mine, b));
                fx.if_then(some, add, out);
                continue;
            };
            let any = fx.vote(SubgroupOperation::Any, some, out);
            let accept = fx.nested(out, |fx, b| {
                let total = fx.reduce(SubgroupOperation::Add, mine, fx.u32_ty, b);
                let add = fx.nested(b, |fx, b| add64(fx, counters, word, total, b));
                fx.if_then(elected, add, b);
            });
            fx.if_then(any, accept, out);
        }
        fx.flush(out);
    }
}
