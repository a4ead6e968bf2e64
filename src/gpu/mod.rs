//! Everything that touches wgpu: adapters, the device, kernels, the timer, buffers and textures
//! in and out.

pub mod adapters;
mod context;
mod dispatch;
pub mod fault;
pub mod inventory;
mod readback;
mod restore;
mod shader;
mod texture;
mod timer;
mod translator;
pub mod watchdog;

pub use adapters::{AdapterEntry, AdapterSelector, BackendChoice};
pub use context::{
    CancelToken, Capabilities, GpuContext, LLVMPIPE_LOOP_BUDGET, LLVMPIPE_LOOP_ITERATIONS,
};
pub use dispatch::Dispatch;
pub use readback::{buffer_with, map_and_read, read_buffer, read_only_buffer, storage_buffer};
pub use restore::{Restore, Written};
pub use shader::{
    Kernel, RuntimeChecks, check_wgsl, compile_checked_wgsl, compile_wgsl, create_pipeline,
    prepare_for_naga,
};
pub use texture::level_bytes;
pub use timer::{Budget, GpuTimer, RoundOrder, Rounds, TimingSource};
