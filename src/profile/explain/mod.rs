//! What a profile tells the user about its kernel and inputs, read statically from the one
//! parsed [`Kernel`] and the fills the run resolved: where a loop that hit the cap reads its
//! bound from, with the value the run used and what to pass instead (`cap.rs`, from the trace
//! in `bound.rs` and `bound_params.rs`, its findings' types in `source.rs`, with the small IR
//! reads in `ir.rs` and the loops around a line in `loops.rs`); which integer fields of a
//! uniform buffer the default fill set, and what it inferred from the code (`defaults.rs`,
//! `infer.rs`, and `bound_fill.rs`: the scalars loops count up to, from the same trace, before
//! the run); which atomic a loop that hit the cap without such a bound waits on, retries or
//! probes (`spin.rs`); the notes on the counts, the uniformity rules and the `return`s naga
//! needed (`notes.rs`); and where llvmpipe's limit on nested conditions makes the deepest
//! lines' counts wrong (`nesting.rs`).

mod bound;
mod bound_fill;
mod cap;
mod condition;
mod defaults;
mod infer;
mod ir;
mod loops;
mod nesting;
mod notes;
mod source;
mod spin;

pub use bound_fill::TexelBound;
pub use cap::cap_message;
pub use condition::condition_sources;
pub use defaults::default_notes;
pub use infer::infer;
pub use nesting::llvmpipe_nesting_note;
pub use notes::{added_returns_note, entry_check, exit_check, uniformity_note};

use crate::profile::fill::Resolved;
#[cfg(doc)]
use crate::profile::kernel::Kernel;

/// The buffers' fills as the run resolved them.
#[derive(Clone, Copy, Debug)]
pub struct Fills<'a> {
    /// One per binding of the interface, in its order.
    pub resolved: &'a [Resolved],
    /// The dispatch's invocations: the default length of a runtime-sized array, and what a
    /// uniform buffer's default fill puts in its integers.
    pub invocations: u64,
}
