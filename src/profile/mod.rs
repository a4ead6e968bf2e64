//! `divlab profile`: per-line divergence profiles of any WGSL compute kernel.
//!
//! [`kernel`] parses the kernel once (its interface, its overrides resolved, its uniformity),
//! [`fill`] makes its buffers, [`instrument`] adds the counters on naga's IR, [`run`] runs and
//! times it, [`report`] turns the counters into per-line and per-branch figures, and
//! [`explain`] tells the user where a capped loop's bound comes from and what the defaults
//! set. What can go wrong before the GPU runs is an [`Error`].

pub mod cost;
pub mod explain;
pub mod fill;
pub mod header;
pub mod instrument;
pub mod kernel;
pub mod report;
pub mod run;

// The profile's error type lives beside the crate's, which holds it (see its module).
use crate::error::profile as error;

pub use error::{Error, Flag, Slot};
