//! CPU reference models: what each kernel should produce, and what each rule predicts.

pub mod convergence;
pub mod divergence;
pub mod reconvergence;
pub mod subgroup_ops;
