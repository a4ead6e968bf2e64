//! The library's error type. Every message says what happened and what to do about it.

pub(crate) mod profile;

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Everything that can go wrong in the divlab library.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Error {
    /// wgpu found no adapter at all on the requested backends.
    #[error(
        "no GPU adapter found{backends}. On Linux without a GPU, install Mesa's lavapipe \
         (`apt-get install mesa-vulkan-drivers`, or run `scripts/setup`); \
         otherwise install your GPU's Vulkan/Metal/DX12 driver{available}"
    )]
    NoAdapter {
        /// Which backends were searched, already formatted (empty for all).
        backends: String,
        /// Adapters on other backends, already formatted (empty when there are none).
        available: String,
    },

    /// `--adapter` matched none of the adapters that exist.
    #[error(
        "no adapter matches `{wanted}`. Adapters found:\n{available}\nPass `--adapter` an index or a name substring from this list"
    )]
    UnknownAdapter {
        /// What the user asked for.
        wanted: String,
        /// The adapter list, one per line.
        available: String,
    },

    /// The backend name is not one divlab knows.
    #[error("unknown backend `{0}`: use one of vulkan, metal, dx12, gl")]
    UnknownBackend(String),

    /// The adapter refused to create a device.
    #[error(
        "could not create a device on `{adapter}`: {reason}. Try another adapter (`divlab adapters`)"
    )]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// wgpu's message.
        reason: String,
    },

    /// A kernel's WGSL does not parse or validate.
    #[error("invalid WGSL in {file}:{line}:{column}: {message}")]
    InvalidWgsl {
        /// The shader file (or label) the source came from.
        file: String,
        /// 1-based line of the first error.
        line: u32,
        /// 1-based column of the first error.
        column: u32,
        /// naga's message, with its full report.
        message: String,
    },

    /// wgpu reported a validation or out-of-memory error while divlab built or ran a kernel.
    #[error("wgpu rejected `{what}`: {reason}")]
    Wgpu {
        /// What divlab was doing.
        what: String,
        /// wgpu's message.
        reason: String,
    },

    /// The GPU did not finish within the host timeout.
    #[error(
        "the GPU did not finish `{what}` within {seconds:.0} s; the work may be far too large \
         for this device. Try a smaller run (`bench --quick`; for `profile`, fewer workgroups or \
         a lower --loop-cap), a larger --timeout, or a faster adapter"
    )]
    Timeout {
        /// What was running.
        what: String,
        /// The timeout that expired.
        seconds: f64,
    },

    /// The device was lost (driver reset, GPU hang recovery, or removal).
    #[error(
        "the GPU device was lost while running `{what}`: {reason}. Results after this point are \
         void; rerun, and report it if it repeats"
    )]
    DeviceLost {
        /// What was running.
        what: String,
        /// The driver's reason.
        reason: String,
    },

    /// The adapter lacks a feature an operation needs.
    #[error("`{what}` needs {feature}, which this adapter does not support")]
    Unsupported {
        /// What needed it.
        what: String,
        /// The missing feature.
        feature: String,
    },

    /// A result file could not be read or parsed.
    #[error("cannot read result file {path}: {reason}")]
    ResultFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, and what to do.
        reason: String,
    },

    /// A result file could not be written.
    #[error("cannot write {path}: {reason}")]
    Write {
        /// The file the user named.
        path: PathBuf,
        /// The I/O error, or what is wrong with the path and what to do. Not a `source`: the
        /// message already shows it, and an error chain (`{:#}`) would print it twice.
        reason: Arc<std::io::Error>,
    },

    /// The run was cancelled; what had not finished is recorded as cancelled.
    #[error("`{what}` was cancelled")]
    Cancelled {
        /// What was running.
        what: String,
    },

    /// A settings struct failed its own `validate()`.
    #[error("invalid settings: {0}")]
    InvalidSettings(String),

    /// `divlab profile` cannot profile the kernel as asked (or hit a divlab bug): the
    /// `profile::Error` itself, so callers can match its variant and read its line (boxed to
    /// keep this enum small).
    #[error(transparent)]
    Profile(Box<profile::Error>),
}

impl Error {
    /// The 1-based line of the kernel the error is about, where it names one: a WGSL error's,
    /// or a profile error's ([`profile::Error::line`]).
    pub fn line(&self) -> Option<u32> {
        match self {
            Self::InvalidWgsl { line, .. } => (*line > 0).then_some(*line),
            Self::Profile(e) => e.line(),
            _ => None,
        }
    }

    /// The process's exit code for this error (docs/exit-codes.md): 3 for a GPU that timed out
    /// or was lost, 4 for a divlab bug, 2 for the rest (usage and setup errors).
    pub fn exit_code(&self) -> u8 {
        match self {
            _ if self.kind().is_gpu_failure() => 3,
            Self::Profile(e) if e.is_bug() => 4,
            _ => 2,
        }
    }

    /// The kind of failure, as results record it.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Timeout { .. } => ErrorKind::Timeout,
            Self::DeviceLost { .. } => ErrorKind::DeviceLost,
            Self::Unsupported { .. } => ErrorKind::Unsupported,
            Self::Cancelled { .. } => ErrorKind::Cancelled,
            Self::InvalidWgsl { .. } => ErrorKind::InvalidWgsl,
            Self::Wgpu { .. } | Self::RequestDevice { .. } => ErrorKind::Wgpu,
            Self::NoAdapter { .. }
            | Self::UnknownAdapter { .. }
            | Self::UnknownBackend(_)
            | Self::ResultFile { .. }
            | Self::Write { .. }
            | Self::InvalidSettings(_)
            | Self::Profile(_) => ErrorKind::Other,
        }
    }
}

/// The crate's result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What kind of failure ended an experiment: readers and exit codes tell a hung or lost GPU
/// from a missing feature or a bad kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The GPU did not finish within the host timeout.
    Timeout,
    /// The device was lost; later results of the run are void.
    DeviceLost,
    /// The adapter lacks a feature.
    Unsupported,
    /// The run was cancelled.
    Cancelled,
    /// A kernel did not compile.
    InvalidWgsl,
    /// wgpu rejected something divlab built.
    Wgpu,
    /// Anything else.
    Other,
}

impl ErrorKind {
    /// Whether the GPU itself failed (timed out or was lost), so later results are suspect.
    pub fn is_gpu_failure(self) -> bool {
        matches!(self, Self::Timeout | Self::DeviceLost)
    }
}
