//! divlab's integration tests: one binary, one module per area.
//!
//! Every GPU test runs real kernels on the default adapter (lavapipe in CI). When no adapter
//! exists the tests fail with a message that says how to install one; they never skip.
//!
//! Environment:
//! - `DIVLAB_EXPECT_SUBGROUP_SIZE`: the subgroup size the default adapter must show (default 8,
//!   lavapipe's; 4 with `LP_NATIVE_VECTOR_WIDTH=128`, 32 on NVIDIA).

#[cfg(feature = "app")]
#[path = "main/app.rs"]
mod app;
#[cfg(feature = "app")]
#[path = "main/app_figures.rs"]
mod app_figures;
#[cfg(feature = "app")]
#[path = "main/app_fit.rs"]
mod app_fit;
#[cfg(feature = "app")]
#[path = "main/app_kernels.rs"]
mod app_kernels;
#[path = "main/cli.rs"]
mod cli;
#[path = "main/cli_pages.rs"]
mod cli_pages;
#[path = "main/compare.rs"]
mod compare;
#[path = "main/convergence.rs"]
mod convergence;
#[path = "main/divergence.rs"]
mod divergence;
#[path = "main/doc_commands.rs"]
mod doc_commands;
#[path = "main/export.rs"]
mod export;
#[path = "main/fault.rs"]
mod fault;
#[path = "main/fuzz.rs"]
mod fuzz;
#[path = "main/gpu.rs"]
mod gpu;
#[path = "main/hostile.rs"]
mod hostile;
#[path = "main/hostile_files.rs"]
mod hostile_files;
#[path = "main/lint.rs"]
mod lint;
#[path = "main/peers.rs"]
mod peers;
#[path = "main/profile.rs"]
mod profile;
#[path = "main/profile_corpus.rs"]
mod profile_corpus;
#[path = "main/profile_cost.rs"]
mod profile_cost;
#[path = "main/profile_documents.rs"]
mod profile_documents;
#[path = "main/profile_figures.rs"]
mod profile_figures;
#[path = "main/profile_fixed.rs"]
mod profile_fixed;
#[path = "main/profile_inputs.rs"]
mod profile_inputs;
#[path = "main/profile_invariant.rs"]
mod profile_invariant;
#[path = "main/profile_loop_bounds.rs"]
mod profile_loop_bounds;
#[path = "main/profile_naga.rs"]
mod profile_naga;
#[path = "main/profile_outputs.rs"]
mod profile_outputs;
#[path = "main/profile_textures.rs"]
mod profile_textures;
#[path = "main/profile_workgroups.rs"]
mod profile_workgroups;
#[path = "main/readme.rs"]
mod readme;
#[path = "main/report.rs"]
mod report;
#[path = "main/scheduling.rs"]
mod scheduling;
#[path = "main/schema.rs"]
mod schema;
#[path = "main/simt_efficiency.rs"]
mod simt_efficiency;
#[path = "main/subgroup_ops.rs"]
mod subgroup_ops;
#[path = "main/tint.rs"]
mod tint;
#[path = "main/uniformity.rs"]
mod uniformity;
#[path = "main/util.rs"]
mod util;
