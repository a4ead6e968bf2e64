//! What the host shares with `shaders/subgroup_ops.wgsl`, checked by the layout test. The
//! `SPLIT_*` and `OP_*` numbers belong to `model::subgroup_ops`, whose own test checks them.

use super::layout::{Mirror, MirroredConst, consts, mirror};

/// Holds a whole subgroup of the largest size WGSL allows.
pub const WORKGROUP_SIZE: u32 = 128;
/// Two workgroups, so a mix-up between workgroups shows.
pub const WORKGROUPS: u32 = 2;
/// Invocations in the dispatch.
pub const INVOCATIONS: u32 = WORKGROUPS * WORKGROUP_SIZE;
/// Words of the random split's mask: one bit per invocation of the dispatch.
pub const MASK_WORDS: usize = (INVOCATIONS / 32) as usize;
/// Result slots per record, one per builtin.
pub const BUILTINS: usize = 25;

/// One dispatch's parameters, `OpsParams` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct OpsParams {
    /// A `Split` as its number.
    pub split: u32,
    /// Padding, written as zero.
    pub pad: [u32; 3],
    /// For the random split: bit i is invocation i of the dispatch.
    pub mask: [u32; MASK_WORDS],
}

/// One invocation's record in one split, `OpsRecord` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct OpsRecord {
    /// `local_invocation_index`.
    pub local_index: u32,
    /// `subgroup_invocation_id`.
    pub subgroup_invocation_id: u32,
    /// The `subgroup_size` builtin.
    pub subgroup_size: u32,
    /// `subgroupBroadcastFirst(local_index)` at entry: names the subgroup in its workgroup.
    pub subgroup_first_index: u32,
    /// `workgroup_id.x`.
    pub workgroup: u32,
    /// 1 where the invocation ran the ops in this split.
    pub executed: u32,
    /// Padding, written as zero.
    pub pad: [u32; 2],
    /// `subgroupBallot(true)` taken first in the block: the observed active set.
    pub active_set: [u32; 4],
    /// Each builtin's result, at its `Op` index; scalars in `.x`.
    pub results: [[u32; 4]; BUILTINS],
}

/// The structs the host shares with the kernel.
pub const MIRRORS: &[Mirror] = &[
    mirror!(OpsParams {
        split,
        pad as [_pad0, _pad1, _pad2],
        mask,
    }),
    mirror!(OpsRecord {
        local_index,
        subgroup_invocation_id,
        subgroup_size,
        subgroup_first_index,
        workgroup,
        executed,
        pad as [_pad0, _pad1],
        active_set,
        results,
    }),
];

/// The constants the host shares with the kernel.
pub const CONSTANTS: &[MirroredConst] = consts![WORKGROUP_SIZE, MASK_WORDS, BUILTINS];
