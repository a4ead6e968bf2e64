//! divlab: a portable GPU divergence lab.
//!
//! Data flows one way: experiment definition → kernel (WGSL from `shaders/`) → GPU run (wgpu)
//! → raw records → reference model → verdicts and statistics → result document → consumers.

#[cfg(feature = "app")]
pub mod app;
pub mod bench;
mod error;
pub mod experiments;
pub mod fuzz;
pub mod gpu;
pub mod model;
mod naga_walk;
pub mod profile;
pub mod report;
pub mod schemas;
pub mod shaders;
pub mod source_map;
pub mod stats;
pub mod uniformity;
pub mod user_file;

pub use error::{Error, Result};
