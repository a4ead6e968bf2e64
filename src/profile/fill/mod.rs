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

pub use encode::{
    PREVIEW_VALUES, contents, count_scalars, first_values, held, initial, scalar_text,
};
pub use files::file_notes;
pub use grammar::{
    BindingRef, BufferSpec, DEFAULT_CHECKER_CELL, DEFAULT_SEED, Fill, parse_dispatch, parse_len,
    parse_override,
};
pub(crate) use resolve::unknown_target;
pub use resolve::{ScalarSet, check_limits, invocations, resolve};
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
    /// Where the kernel's code says what the default fill should hold instead (set by
    /// `explain::infer`; empty where `--buffer` gave the fill).
    pub inferred: Vec<Inferred>,
    /// Each `--buffer BINDING.PLACE=NUMBER` that names it, written over the fill and the
    /// inferred values, in the order given.
    pub sets: Vec<ScalarSet>,
}

/// A default that the kernel's use of a binding chose over the fill's rule.
#[derive(Clone, Debug, PartialEq)]
pub enum Inferred {
    /// A uniform's integer scalar that the kernel only compares with 0 or 1 (a flag): it holds
    /// `value` instead of the dispatch's invocations.
    Flag {
        /// Its byte offset in the buffer.
        offset: u64,
        /// 0, or 1 where 0 would send every invocation out at once.
        value: u64,
        /// Its WGSL path from the variable (`.value`).
        path: String,
        /// The first line that compares it.
        line: u32,
    },
    /// A uniform's integer scalar that bounds one dimension of a texture's coordinates
    /// (`gid.x < params.width` where `gid.xy` addresses the texture): it holds that size.
    Size {
        /// Its byte offset in the buffer.
        offset: u64,
        /// Its WGSL path from the variable (`.width`).
        path: String,
        /// The first line that compares it.
        line: u32,
        /// The texture's name.
        texture: String,
        /// The dimension: 0 width, 1 height, 2 depth or layers.
        dim: u32,
        /// Whether `texture` names a storage buffer whose runtime-sized array the field bounds
        /// the index of (`if i >= params.n { return; } data[i]`): it holds the array's length.
        array: bool,
        /// The texture's size in it, once the texture is made; `None` keeps the fill's value.
        value: Option<u64>,
    },
    /// An integer scalar at a constant place that a loop counts up to (`i < info[0]`, `i <
    /// params.runs[2]`), which no other rule sets: a storage buffer's or immediate's scalar, a
    /// uniform's array element. It holds the dispatch's invocations, as a
    /// uniform's integer fields do, not a random integer that runs the loop into the cap.
    Bound {
        /// Its byte offset in the buffer.
        offset: u64,
        /// Its type.
        scalar: naga::Scalar,
        /// Its WGSL path from the variable (`[0]`, `.dims.x`).
        path: String,
        /// The line of the first loop it bounds.
        line: u32,
        /// The dispatch's invocations, held below the type's largest value.
        value: u64,
    },
    /// A storage buffer whose elements, at an index that varies, a loop counts up to (a CSR
    /// row's end, a cell's particle count): its random integers keep their lowest `bits` bits,
    /// a handful of trips each, not full-range integers that run the loop into the cap.
    Counts {
        /// The line of the first loop that counts up to one.
        line: u32,
        /// The index there, as the source writes it.
        index: String,
        /// How many of each integer's lowest random bits stay.
        bits: u32,
        /// How the kept integers make the elements: counts, or the ends of ranges.
        steps: Steps,
    },
    /// Integers whose elements the kernel compares with 1 (cells that are on or off): the
    /// random fill's integers are cut to their lowest bit, 0 or 1.
    Bits {
        /// The first line that compares an element with 1.
        line: u32,
    },
}

/// How a buffer of loop bounds ([`Inferred::Counts`]) holds its cut integers.
#[derive(Clone, Debug, PartialEq)]
pub enum Steps {
    /// Each is a count, 0 to 2^bits − 1 (a cell's particle count).
    Cut,
    /// A loop runs over a range of two of its elements: its bound is their difference
    /// (`offsets[i + 1u] - offsets[i]`), or its counter runs from one to the other (`for (var
    /// j = row_ptr[i]; j < row_ptr[i + 1u]; j++)`). Each integer is the sum of those before it,
    /// in layout order, so that the elements ascend by 0 to 2^bits − 1, as a prefix sum's
    /// offsets do.
    Ascending,
    /// A loop's counter starts at one of its elements and counts up to the element at the same
    /// index of the buffer `ends` (`for (var j = cell_start[c]; j < cell_end[c]; j++)`): it
    /// ascends as [`Self::Ascending`] does, and `ends` holds its [`Self::EndsOf`].
    StartsOf {
        /// The other buffer's name.
        ends: String,
    },
    /// The ends of the ranges that the elements of the buffer `starts` (at `group`/`binding`,
    /// [`Self::StartsOf`]) start: each is the element after the same index there, from the
    /// random steps of that buffer's default fill, so that each range holds 0 to 2^bits − 1.
    EndsOf {
        /// The other buffer's name.
        starts: String,
        /// Its `@group`.
        group: u32,
        /// Its `@binding`.
        binding: u32,
    },
}

impl Steps {
    /// Whether a range's end is read from the element after its start, so that the buffer
    /// needs one element more than the invocations.
    pub fn reads_one_past(&self) -> bool {
        matches!(self, Self::Ascending | Self::StartsOf { .. })
    }
}

impl Resolved {
    /// Its runtime-sized array's length: `--len`'s, else one element per invocation of the
    /// dispatch, and one more where a loop runs over ranges of its elements
    /// ([`Steps::reads_one_past`]): the last invocation's range reads the element after its
    /// own.
    pub fn len_or(&self, invocations: u64) -> u64 {
        let ranges = self
            .counts()
            .is_some_and(|(_, steps)| steps.reads_one_past());
        self.len.unwrap_or(invocations + u64::from(ranges))
    }

    /// Where its default fill holds loop bounds ([`Inferred::Counts`]): the largest integer
    /// that stays (2^bits − 1), and how the integers hold it.
    pub fn counts(&self) -> Option<(u64, &Steps)> {
        self.inferred.iter().find_map(|i| match i {
            Inferred::Counts { bits, steps, .. } => Some(((1u64 << bits) - 1, steps)),
            _ => None,
        })
    }
}

impl Inferred {
    /// Whether it cuts every integer of the buffer ([`Self::Bits`], [`Self::Counts`]) rather
    /// than setting one scalar.
    pub fn cuts_all(&self) -> bool {
        matches!(self, Self::Bits { .. } | Self::Counts { .. })
    }

    /// The byte offset of the scalar it sets (0 for [`Self::Bits`] and [`Self::Counts`], which
    /// cut them all).
    pub fn offset(&self) -> u64 {
        match *self {
            Self::Flag { offset, .. } | Self::Size { offset, .. } | Self::Bound { offset, .. } => {
                offset
            }
            Self::Bits { .. } | Self::Counts { .. } => 0,
        }
    }
}
