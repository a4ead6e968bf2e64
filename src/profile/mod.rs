//! `divlab profile`: per-line divergence profiles of any WGSL compute kernel.
//!
//! [`kernel`] reads the kernel's interface and resolves its overrides, [`fill`] makes its
//! buffers, [`instrument`] adds the counters on naga's IR, [`run`] runs and times it, and
//! [`report`] turns the counters into per-line and per-branch figures. What can go wrong before
//! the GPU runs is an [`Error`].

pub mod fill;
pub mod instrument;
pub mod kernel;
pub mod report;
pub mod run;

// The profile's error type lives beside the crate's, which holds it (see its module).
use crate::error::profile as error;

pub use error::{Error, Flag, Slot};
