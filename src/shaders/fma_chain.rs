//! What the host shares with `shaders/fma_chain.wgsl`, checked by the layout test.

use super::layout::{Mirror, MirroredConst, consts};

/// Invocations per workgroup.
pub const WORKGROUP_SIZE: u32 = 64;

/// 16 vec4 FMAs per iteration, 2 flops each lane-component. Keep in sync with the shader's body
/// (the layout test does not read function bodies).
pub const FLOPS_PER_ITERATION: f64 = 16.0 * 4.0 * 2.0;

/// No struct: the kernel only writes a `vec4<f32>` sink.
pub const MIRRORS: &[Mirror] = &[];

/// The constants the host shares with the kernel.
pub const CONSTANTS: &[MirroredConst] = consts![WORKGROUP_SIZE];
