//! What `divlab profile` puts in a kernel's buffers: the command-line forms in `grammar.rs`,
//! their resolution against the kernel's [`KernelInterface`](super::kernel::KernelInterface)
//! in `resolve.rs`, and the bytes of each buffer in `encode.rs`. Pure; no device.

mod encode;
mod files;
mod grammar;
mod resolve;
#[cfg(test)]
mod tests;
mod texels;
mod texture;

pub use encode::{PREVIEW_VALUES, contents, count_scalars, first_values, initial};
pub use files::file_notes;
pub use grammar::{
    BindingRef, BufferSpec, DEFAULT_CHECKER_CELL, DEFAULT_SEED, Fill, parse_dispatch, parse_len,
    parse_override,
};
pub use resolve::{check_limits, invocations, resolve};
pub use texels::{Picture, TexelLayout, texels, to_rgba8};
pub use texture::{
    DEFAULT_ADDRESS, DEFAULT_FILTER, FORMATS, Format, FormatSpec, Named, OptionValue, SamplerMode,
    SamplerSpec, SavePath, SaveSpec, Size, SizeSpec, TextureOptions, TextureSpec,
};

/// One binding's resolved settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// Index into [`KernelInterface::bindings`](super::kernel::KernelInterface::bindings).
    pub index: usize,
    /// Its fill ([`Fill::default`] where none was given).
    pub fill: Fill,
    /// Its runtime-sized array's length, where `--len` gave one (the host picks a default).
    pub len: Option<u64>,
    /// Whether `--buffer` gave the fill. A uniform buffer left to the default holds the
    /// dispatch's invocations in its integer scalars ([`initial`]).
    pub given: bool,
}
