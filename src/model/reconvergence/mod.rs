//! Structured programs and their simulation under maximal reconvergence: the reference the
//! reconvergence fuzzer holds GPUs against.
//!
//! This extends the convergence scenarios' model (`model::convergence`) from fixed scenarios to
//! any program tree: the same structured rule (seed 003: invocations are together when they
//! reached a point along the same path; they reconverge at the end of every `if`, `switch`,
//! loop and call), computed by running the whole workgroup with an active mask. A ballot's
//! expected value is the mask restricted to the invocation's subgroup.
//!
//! Every loop is bounded by construction: `for` loops by a small constant or per-lane bound,
//! elect loops because each iteration retires at least one invocation per subgroup (and by a
//! guard at the workgroup size besides).
//!
//! `program` holds the program tree, `simulation` runs it over a workgroup, and
//! `static_uniformity` says where WGSL's uniformity rules promise reconvergence.

mod program;
mod simulation;
mod static_uniformity;

pub use program::{Bound, Cond, Program, Selector, Stmt};
pub use simulation::{ExpectedBallot, Layout, bits, simulate};
pub use static_uniformity::{Scopes, uniform_points};

#[cfg(test)]
mod tests;
