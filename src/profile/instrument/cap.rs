//! The loop cap, the safety net that keeps a user kernel from hanging the GPU: every loop
//! counts its trips per entry, and a trip past the cap records the hit and breaks out.

use naga::{AtomicFunction, BinaryOperator, Block, Handle, Literal, LocalVariable, Statement};

use super::Pass;
use super::count::counter;
use super::emit::Emitter;
use super::layout::Word;

/// A loop's cap check: its trip counter, the cap, the loop's index.
#[derive(Clone, Copy)]
pub(super) struct CapCheck {
    pub trips: Handle<LocalVariable>,
    pub cap: u32,
    pub lp: usize,
}

impl Pass<'_> {
    /// Before loop `lp`: its trip counter `divlab_trips{lp}`, set to 0.
    pub(super) fn new_cap_check(
        &self,
        fx: &mut Emitter<'_>,
        lp: usize,
        out: &mut Block,
    ) -> CapCheck {
        let trips = fx.new_local(format!("divlab_trips{lp}"), self.g.u32_ty);
        let pointer = fx.local(trips, out);
        let zero = fx.literal(Literal::U32(0), out);
        fx.store(pointer, zero, out);
        CapCheck {
            trips,
            cap: self.opts.loop_cap,
            lp,
        }
    }

    /// The top of a loop body: `trips += 1u; if trips > cap { atomicMax(&cap_hit, loop + 1u);
    /// atomicAdd(&cap_hits[loop], 1u); break; }`.
    pub(super) fn cap_check(&self, fx: &mut Emitter<'_>, check: CapCheck, out: &mut Block) {
        let CapCheck { trips, cap, lp } = check;
        let counters = self.g.counters;
        let pointer = fx.local(trips, out);
        let after = fx.increment(pointer, out);
        let cap = fx.literal(Literal::U32(cap), out);
        let over = fx.binary(BinaryOperator::Greater, after, cap);
        let hit = fx.nested(out, |fx, b| {
            let first = counter(fx, counters, Word::CapHit, b);
            let id = fx.literal(Literal::U32(lp as u32 + 1), b);
            fx.atomic(first, AtomicFunction::Max, id, b);
            let hits = counter(fx, counters, Word::Loop(lp), b);
            let one = fx.literal(Literal::U32(1), b);
            fx.atomic(hits, AtomicFunction::Add, one, b);
            fx.statement(Statement::Break, b);
        });
        fx.if_then(over, hit, out);
    }
}
