//! The loop cap, the safety net that keeps a user kernel from hanging the GPU: every trip of
//! every loop adds 1 to the invocation's one private trip counter, and the trip that takes it
//! past the cap records the hit in its loop and breaks out; every later trip of the invocation,
//! of an enclosing loop or any other, breaks out at once. So nested loops bounded by inputs end
//! after `cap` trips in all, not `cap` per entry of each.

use naga::{AtomicFunction, BinaryOperator, Block, Handle, Literal, LocalVariable, Statement};

use super::Pass;
use super::emit::{Emitter, counter};
use super::layout::Word;

/// A loop's cap check: the loop's own trip counter (a hoisted loop's counts are made from it),
/// the cap, the loop's index.
#[derive(Clone, Copy)]
pub(super) struct CapCheck {
    pub trips: Option<Handle<LocalVariable>>,
    pub cap: u32,
    pub lp: usize,
}

impl Pass<'_> {
    /// Before loop `lp`: with `own_trips` (a hoisted loop), its trip counter `divlab_trips{lp}`,
    /// set to 0.
    pub(super) fn new_cap_check(
        &self,
        fx: &mut Emitter<'_>,
        lp: usize,
        own_trips: bool,
        out: &mut Block,
    ) -> CapCheck {
        let trips = own_trips.then(|| {
            let trips = fx.new_local(format!("divlab_trips{lp}"), self.g.u32_ty);
            let pointer = fx.local(trips, out);
            let zero = fx.literal(Literal::U32(0), out);
            fx.store(pointer, zero, out);
            trips
        });
        CapCheck {
            // `cap + 1u` below must not wrap.
            cap: self.opts.loop_cap.min(u32::MAX - 1),
            trips,
            lp,
        }
    }

    /// The top of a loop body: `trips{lp} += 1u;` (a hoisted loop's own count), then
    /// `divlab_trips += 1u; if divlab_trips > cap { if !divlab_capped { atomicMax(&cap_hit,
    /// lp + 1u); atomicAdd(&cap_hits[lp], 1u); divlab_capped = true; } break; }`: the hit is
    /// recorded once per invocation, in the loop whose trip first found the cap passed.
    pub(super) fn cap_check(&self, fx: &mut Emitter<'_>, check: CapCheck, out: &mut Block) {
        let CapCheck { trips, cap, lp } = check;
        if let Some(trips) = trips {
            let pointer = fx.local(trips, out);
            fx.increment(pointer, out);
        }
        let counters = self.g.counters;
        let capped = self.g.capped;
        let pointer = fx.global(self.g.trips, out);
        let after = fx.increment(pointer, out);
        let cap_literal = fx.literal(Literal::U32(cap), out);
        let over = fx.binary(BinaryOperator::Greater, after, cap_literal);
        let hit = fx.nested(out, |fx, b| {
            let flag = fx.global(capped, b);
            let recorded = fx.load(flag);
            let first = fx.unary(naga::UnaryOperator::LogicalNot, recorded);
            let record = fx.nested(b, |fx, b| {
                let word = counter(fx, counters, Word::CapHit, b);
                let id = fx.literal(Literal::U32(lp as u32 + 1), b);
                fx.atomic(word, AtomicFunction::Max, id, b);
                let hits = counter(fx, counters, Word::Loop(lp), b);
                let one = fx.literal(Literal::U32(1), b);
                fx.atomic(hits, AtomicFunction::Add, one, b);
                let flag = fx.global(capped, b);
                let yes = fx.literal(Literal::Bool(true), b);
                fx.store(flag, yes, b);
            });
            fx.if_then(first, record, b);
            fx.statement(Statement::Break, b);
        });
        fx.if_then(over, hit, out);
    }
}
