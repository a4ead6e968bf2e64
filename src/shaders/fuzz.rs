//! What the host shares with the fuzzer's generated kernels (`fuzz::wgsl::emit`), checked by
//! the layout test against a generated program.

use super::layout::{Mirror, mirror};

/// One stored record, `Record` in the generated prelude.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FuzzRecord {
    /// `subgroupBallot(true)`.
    pub ballot: [u32; 4],
    /// The record point.
    pub point: u32,
    /// Padding, written as zero.
    pub pad: [u32; 3],
}

/// Per invocation, written at entry: (`subgroup_invocation_id`, the subgroup's first local
/// index, `subgroup_size`, records made so far).
pub type FuzzInfo = [u32; 4];

/// The structs the host shares with the kernel. Its `Params` has no mirror: the host fills
/// it with plain `u32` ones.
pub const MIRRORS: &[Mirror] = &[mirror!(FuzzRecord as Record {
    ballot,
    point,
    pad as [pad0, pad1, pad2],
})];
