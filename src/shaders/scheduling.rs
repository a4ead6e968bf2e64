//! What the host shares with the `shaders/scheduling_*.wgsl` kernels, one module per file,
//! checked by the layout test. Records that name a subgroup name a block of [`BLOCK`]
//! consecutive local invocations in the `_no_sg` entry points.

use super::layout::{Mirror, MirroredConst, mirror};

/// Invocations in a block, the group the `_no_sg` entry points use where the adapter has no
/// subgroups: the smallest subgroup WGSL allows.
pub const BLOCK: u32 = 4;

/// Invocations per workgroup in every scheduling kernel but `run_ahead` (whose size is an
/// override): holds a subgroup of any size WGSL allows.
pub const WORKGROUP_SIZE: u32 = 128;

/// The spin probes' parameters: `SpinParams` in `scheduling_forward_progress.wgsl` and
/// `HandshakeParams` in `scheduling_handshake.wgsl` (the same layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SpinParams {
    /// The most flag checks a spin makes.
    pub cap: u32,
    /// Padding, written as zero.
    pub pad: [u32; 3],
}

/// `scheduling_forward_progress.wgsl`.
pub mod forward_progress {
    use super::{BLOCK, Mirror, MirroredConst, SpinParams, WORKGROUP_SIZE, mirror};
    use crate::shaders::layout::consts;
    /// A lane that spins on the flag.
    pub const ROLE_SPINNER: u32 = 1;
    /// A lane that sets the flag.
    pub const ROLE_SETTER: u32 = 2;
    /// A spinner that never saw the flag.
    pub const NOT_SEEN: u32 = u32::MAX;

    /// One invocation's record, `SpinRecord` in the shader.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct SpinRecord {
        /// The subgroup's flag index: workgroup * 128 + the subgroup's first local index (the
        /// block's without subgroups).
        pub subgroup: u32,
        /// `subgroup_invocation_id` (the position in the block without subgroups).
        pub lane: u32,
        /// The `subgroup_size` builtin ([`BLOCK`] without subgroups).
        pub size: u32,
        /// [`ROLE_SPINNER`] or [`ROLE_SETTER`]; 0 where the lane never wrote its record.
        pub role: u32,
        /// Spinners: the check (0-based) at which the flag was first seen, or [`NOT_SEEN`].
        pub seen: u32,
        /// `local_invocation_index`.
        pub local_index: u32,
        /// Padding, written as zero.
        pub pad: [u32; 2],
        /// `subgroupBallot(true)` on the lane's path (zero without subgroups).
        pub ballot: [u32; 4],
    }

    /// The structs the host shares with the kernel.
    pub const MIRRORS: &[Mirror] = &[
        mirror!(SpinParams {
            cap,
            pad as [_pad0, _pad1, _pad2],
        }),
        mirror!(SpinRecord {
            subgroup,
            lane,
            size,
            role,
            seen,
            local_index,
            pad as [_pad0, _pad1],
            ballot,
        }),
    ];

    /// The constants the host shares with the kernel.
    pub const CONSTANTS: &[MirroredConst] =
        consts![WORKGROUP_SIZE, BLOCK, ROLE_SPINNER, ROLE_SETTER, NOT_SEEN];
}

/// `scheduling_handshake.wgsl`.
pub mod handshake {
    use super::{BLOCK, Mirror, MirroredConst, SpinParams, WORKGROUP_SIZE, mirror};
    use crate::shaders::layout::consts;
    /// The lanes that set flag a, then wait for b.
    pub const SIDE_A: u32 = 1;
    /// The lanes that wait for flag a, then set b.
    pub const SIDE_B: u32 = 2;

    /// One invocation's record, `HandshakeRecord` in the shader.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct HandshakeRecord {
        /// The subgroup's slot: workgroup * 128 + the subgroup's first local index (the block's
        /// without subgroups).
        pub subgroup: u32,
        /// `subgroup_invocation_id` (the position in the block without subgroups).
        pub lane: u32,
        /// The `subgroup_size` builtin ([`BLOCK`] without subgroups).
        pub size: u32,
        /// [`SIDE_A`] or [`SIDE_B`]; 0 where the lane never wrote its record.
        pub side: u32,
        /// Flag checks the lane's spin made, 1..=cap.
        pub checks: u32,
        /// 1 where the awaited flag was seen within the cap, 0 where the spin gave up.
        pub saw: u32,
        /// `local_invocation_index`.
        pub local_index: u32,
        /// Padding, written as zero.
        pub pad: u32,
        /// `subgroupBallot(true)` on the lane's side (zero without subgroups).
        pub ballot: [u32; 4],
    }

    /// The structs the host shares with the kernel.
    pub const MIRRORS: &[Mirror] = &[
        mirror!(SpinParams as HandshakeParams {
            cap,
            pad as [_pad0, _pad1, _pad2],
        }),
        mirror!(HandshakeRecord {
            subgroup,
            lane,
            size,
            side,
            checks,
            saw,
            local_index,
            pad as _pad0,
            ballot,
        }),
    ];

    /// The constants the host shares with the kernel.
    pub const CONSTANTS: &[MirroredConst] = consts![WORKGROUP_SIZE, BLOCK, SIDE_A, SIDE_B];
}

/// `scheduling_interleaving.wgsl`.
pub mod interleaving {
    use super::{BLOCK, Mirror, MirroredConst, WORKGROUP_SIZE, mirror};
    use crate::shaders::layout::consts;
    /// Tickets per lane.
    pub const POINTS: usize = 4;
    /// The lanes in the then-branch.
    pub const SIDE_THEN: u32 = 1;
    /// The lanes in the else-branch.
    pub const SIDE_ELSE: u32 = 2;

    /// One invocation's record, `TicketRecord` in the shader.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct TicketRecord {
        /// The subgroup's counter index: workgroup * 128 + its first local index (the block's
        /// without subgroups).
        pub subgroup: u32,
        /// `subgroup_invocation_id` (the position in the block without subgroups).
        pub lane: u32,
        /// The `subgroup_size` builtin ([`BLOCK`] without subgroups).
        pub size: u32,
        /// [`SIDE_THEN`] or [`SIDE_ELSE`]; 0 where the lane never wrote its record.
        pub side: u32,
        /// The tickets taken at points 0..4.
        pub tickets: [u32; POINTS],
        /// `subgroupBallot(true)` at the side's first ticket (zero without subgroups).
        pub ballot: [u32; 4],
        /// `local_invocation_index`.
        pub local_index: u32,
        /// The side's work, stored so it cannot be dropped.
        pub work: u32,
        /// Padding, written as zero.
        pub pad: [u32; 2],
    }

    /// The structs the host shares with the kernel.
    pub const MIRRORS: &[Mirror] = &[mirror!(TicketRecord {
        subgroup,
        lane,
        size,
        side,
        tickets,
        ballot,
        local_index,
        work,
        pad as [_pad0, _pad1],
    })];

    /// The constants the host shares with the kernel.
    pub const CONSTANTS: &[MirroredConst] =
        consts![WORKGROUP_SIZE, BLOCK, POINTS, SIDE_THEN, SIDE_ELSE];
}

/// `scheduling_lockstep_race.wgsl`.
pub mod lockstep_race {
    use super::{BLOCK, Mirror, MirroredConst, WORKGROUP_SIZE, mirror};
    use crate::shaders::layout::consts;

    /// One dispatch's parameters, `RaceParams` in the shader.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct RaceParams {
        /// Mixed into every input.
        pub seed: u32,
        /// `racy_skewed`: lane l delays `(l % 4) * skew` hash iterations before the reduction.
        pub skew: u32,
        /// The run's block of records.
        pub run: u32,
        /// Padding, written as zero.
        pub pad: u32,
    }

    /// One invocation's record, `RaceRecord` in the shader.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct RaceRecord {
        /// The subgroup's slot in workgroup memory (unique in its workgroup; the block's number
        /// in its workgroup without subgroups).
        pub slot: u32,
        /// `subgroup_invocation_id` (the position in the block without subgroups).
        pub lane: u32,
        /// The `subgroup_size` builtin ([`BLOCK`] without subgroups); 0 where the lane never
        /// wrote its record.
        pub size: u32,
        /// The lane's input.
        pub input: u32,
        /// The total the lane read back.
        pub total: u32,
        /// `local_invocation_index`.
        pub local_index: u32,
        /// 1 where the subgroup's block fit in workgroup memory and the reduction ran.
        pub valid: u32,
        /// Padding, written as zero.
        pub pad: u32,
    }

    /// The structs the host shares with the kernel.
    pub const MIRRORS: &[Mirror] = &[
        mirror!(RaceParams {
            seed,
            skew,
            run,
            pad as _pad0,
        }),
        mirror!(RaceRecord {
            slot,
            lane,
            size,
            input,
            total,
            local_index,
            valid,
            pad as _pad0,
        }),
    ];

    /// The constants the host shares with the kernel.
    pub const CONSTANTS: &[MirroredConst] = consts![WORKGROUP_SIZE, BLOCK];
}

/// `scheduling_run_ahead.wgsl`.
pub mod run_ahead {
    use super::{Mirror, MirroredConst, mirror};

    /// Entries of the pointer-chase table, indexed through `TABLE_MASK`.
    pub const TABLE_SIZE: usize = 1 << 16;

    /// The kernel's parameters, `AheadParams` in the shader.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
    pub struct AheadParams {
        /// Iterations of 4 dependent FMAs on the long path (even lanes).
        pub long_iters: u32,
        /// The same on the short path (odd lanes).
        pub short_iters: u32,
        /// Dependent table loads after the join.
        pub post_iters: u32,
        /// Lanes with `(lane & 1) == post_parity` do the post-join work; always 1 (the short
        /// lanes).
        pub post_parity: u32,
    }

    /// The structs the host shares with the kernel.
    pub const MIRRORS: &[Mirror] = &[mirror!(AheadParams {
        long_iters,
        short_iters,
        post_iters,
        post_parity,
    })];

    /// The constants the host shares with the kernel (its `WORKGROUP_SIZE` is an override the
    /// host sets).
    pub const CONSTANTS: &[MirroredConst] =
        &[MirroredConst::new("TABLE_MASK", (TABLE_SIZE - 1) as u64)];
}
