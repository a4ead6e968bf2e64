//! What the host shares with `shaders/subgroup_size.wgsl`, checked by the layout test.

use super::layout::{Mirror, MirroredConst, consts, mirror};

/// Holds a whole subgroup of the largest size WGSL allows.
pub const WORKGROUP_SIZE: u32 = 128;

/// One invocation's record, `SizeRecord` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SizeRecord {
    /// `local_invocation_index`.
    pub local_index: u32,
    /// `subgroup_invocation_id`.
    pub subgroup_invocation_id: u32,
    /// The `subgroup_size` builtin.
    pub subgroup_size: u32,
    /// Popcount of `subgroupBallot(true)` at entry.
    pub ballot_popcount: u32,
    /// `subgroupMin(local_invocation_index)`: names the subgroup within its workgroup.
    pub subgroup_first_index: u32,
    /// `workgroup_id.x`.
    pub workgroup: u32,
    /// Padding, written as zero.
    pub pad: [u32; 2],
    /// `subgroupBallot(true)` at entry.
    pub ballot: [u32; 4],
}

/// The structs the host shares with the kernel.
pub const MIRRORS: &[Mirror] = &[mirror!(SizeRecord {
    local_index,
    subgroup_invocation_id,
    subgroup_size,
    ballot_popcount,
    subgroup_first_index,
    workgroup,
    pad as [_pad0, _pad1],
    ballot,
})];

/// The constants the host shares with the kernel.
pub const CONSTANTS: &[MirroredConst] = consts![WORKGROUP_SIZE];
