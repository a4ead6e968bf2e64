//! What built this divlab: its version, the git commit, and the wgpu and naga versions (naga is
//! the compiler that turns every kernel into SPIR-V, MSL, HLSL or GLSL). Set by `build.rs`.

/// divlab's own version (`Cargo.toml`).
pub const DIVLAB_VERSION: &str = env!("CARGO_PKG_VERSION");
/// The commit this was built from, 12 hex digits; `unknown` outside a git checkout.
pub const GIT_COMMIT: &str = env!("DIVLAB_GIT_COMMIT");
/// The wgpu version in Cargo.lock.
pub const WGPU_VERSION: &str = env!("DIVLAB_WGPU_VERSION");
/// The naga version in Cargo.lock.
pub const NAGA_VERSION: &str = env!("DIVLAB_NAGA_VERSION");

/// `divlab --version`'s text after the name: one line per component.
pub const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\ncommit ",
    env!("DIVLAB_GIT_COMMIT"),
    "\nwgpu ",
    env!("DIVLAB_WGPU_VERSION"),
    "\nnaga ",
    env!("DIVLAB_NAGA_VERSION"),
);

/// The `divlab_version` a result document records: the version, then the commit and the wgpu
/// and naga versions in parentheses, e.g. `0.1.0 (e462508a1b2c, wgpu 30.0.2, naga 30.0.2)`.
pub fn version_record() -> String {
    format!("{DIVLAB_VERSION} ({GIT_COMMIT}, wgpu {WGPU_VERSION}, naga {NAGA_VERSION})")
}
