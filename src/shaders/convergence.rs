//! What the host shares with `shaders/convergence.wgsl`, checked by the layout test.

use super::layout::{Mirror, MirroredConst, consts, mirror};

/// One workgroup: enough for every subgroup size WGSL allows, and a lane grid that stays
/// readable.
pub const WORKGROUP_SIZE: u32 = 128;

/// One invocation's record at one point, `Record` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ConvergenceRecord {
    /// `subgroupBallot(true)` at the point; all zero where the point was never reached.
    pub ballot: [u32; 4],
    /// The point's value (see `ValueOp`).
    pub value: u32,
    /// `local_invocation_index`.
    pub local_index: u32,
    /// `subgroup_invocation_id`.
    pub lane: u32,
    /// The local index of the subgroup's first invocation at entry.
    pub subgroup: u32,
    /// The `subgroup_size` builtin.
    pub size: u32,
    /// Padding, written as zero.
    pub pad: [u32; 3],
}

impl ConvergenceRecord {
    /// Whether the invocation reached the point: its ballot holds at least itself.
    pub fn reached(&self) -> bool {
        self.ballot != [0; 4]
    }

    /// The ballot as one 128-bit mask.
    pub fn ballot_mask(&self) -> u128 {
        self.ballot
            .iter()
            .rev()
            .fold(0, |m, &w| (m << 32) | u128::from(w))
    }
}

/// The structs the host shares with the kernel.
pub const MIRRORS: &[Mirror] = &[mirror!(ConvergenceRecord as Record {
    ballot,
    value,
    local_index,
    lane,
    subgroup,
    size,
    pad as [pad0, pad1, pad2],
})];

/// The constants the host shares with the kernel.
pub const CONSTANTS: &[MirroredConst] = consts![WORKGROUP_SIZE];
