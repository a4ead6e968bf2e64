//! What can go wrong in `divlab profile` before the GPU runs: one variant per case, each
//! message saying what to change. It converts into the crate's [`crate::Error`]
//! (`Error::Profile`), which keeps it whole, so the app can match a variant and read its line
//! ([`Error::line`]). Its kind is `Other`: the CLI exits 2 for all of them, but for a divlab bug
//! ([`Error::Internal`], exit 4). It lives here, below `profile`, so that `crate::Error` can hold
//! it without an import circle; `crate::profile::Error` is the name to use.

use std::fmt;
use std::path::PathBuf;

/// The command-line option an input error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flag {
    /// `--buffer NAME=FILL`.
    Buffer,
    /// `--len NAME=N`.
    Len,
    /// `--texture NAME=FILL`.
    Texture,
    /// `--size NAME=W[,H[,D]]`.
    Size,
    /// `--format NAME=FORMAT`.
    Format,
    /// `--sampler NAME=MODE`.
    Sampler,
    /// `--save NAME=FILE`.
    Save,
    /// `--override NAME=VALUE`.
    Override,
}

impl Flag {
    /// The option as it is typed: `--buffer`, `--len`, ...
    pub fn name(self) -> &'static str {
        match self {
            Self::Buffer => "--buffer",
            Self::Len => "--len",
            Self::Texture => "--texture",
            Self::Size => "--size",
            Self::Format => "--format",
            Self::Sampler => "--sampler",
            Self::Save => "--save",
            Self::Override => "--override",
        }
    }
}

impl fmt::Display for Flag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A resource of the kernel that an error is about: a buffer, texture or sampler binding (or
/// the immediates block, at group and binding 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Its variable's name.
    pub name: String,
    /// Its `@group`.
    pub group: u32,
    /// Its `@binding`.
    pub binding: u32,
    /// The 1-based line of its declaration (0 when unknown).
    pub line: u32,
}

/// A profile request the kernel or the command line cannot satisfy, or a divlab bug.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The kernel file could not be read.
    #[error("cannot read the kernel {}: {reason}", path.display())]
    ReadKernel {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        reason: String,
    },

    /// The kernel has no `@compute` entry point at all.
    #[error(
        "{file} has no @compute entry point; divlab profile runs compute kernels \
         (`@compute @workgroup_size(64) fn main(...)`)"
    )]
    NoEntryPoint {
        /// The kernel's file.
        file: String,
    },

    /// The kernel has several `@compute` entry points and `--entry` picked none.
    #[error("{file} has {count} @compute entry points ({names}); pick one with --entry NAME")]
    SeveralEntryPoints {
        /// The kernel's file.
        file: String,
        /// How many there are.
        count: usize,
        /// Their names, quoted and comma-separated.
        names: String,
    },

    /// `--entry` names no `@compute` entry point of the kernel.
    #[error("--entry {wanted}: {why}")]
    UnknownEntryPoint {
        /// The name asked for.
        wanted: String,
        /// What the name is instead, and the entry points there are.
        why: String,
    },

    /// The entry point uses a resource divlab cannot make a buffer for.
    #[error(
        "`{name}` ({declared}, line {line} of {file}) is {what}, which entry point `{entry}` \
         uses; divlab profile binds buffers, immediates, textures and samplers, but cannot make \
         this one: profile an entry point that reads its inputs from those"
    )]
    UnsupportedBinding {
        /// The variable's name.
        name: String,
        /// `@group(g) @binding(b)`, or its address space.
        declared: String,
        /// The 1-based line of its declaration (0 when unknown).
        line: u32,
        /// The kernel's file.
        file: String,
        /// What kind of resource it is.
        what: String,
        /// The entry point.
        entry: String,
    },

    /// The kernel already uses a binding divlab needs for its own buffers.
    #[error(
        "the kernel's `{name}` already uses @group({group}) @binding({binding}), where divlab \
         binds {what}; pick another counters group"
    )]
    TakenBinding {
        /// The kernel's variable there.
        name: String,
        /// Its group.
        group: u32,
        /// Its binding.
        binding: u32,
        /// What divlab binds there.
        what: String,
    },

    /// The kernel uses every bind group the adapter has, leaving none for the counters.
    #[error(
        "the kernel uses bind groups up to {highest}, and this adapter has {available}: divlab \
         profile needs one more for its counters. Move the kernel's bindings into fewer groups, \
         or use an adapter with more (`divlab adapters`)"
    )]
    NoCountersGroup {
        /// The highest group the kernel uses.
        highest: u32,
        /// The adapter's `max_bind_groups`.
        available: u32,
    },

    /// An `--override` names no constant, names one twice, or leaves one without a value.
    #[error("{why}")]
    BadOverride {
        /// `--override`, where one asked for it (not for a constant left without a value).
        flag: Option<Flag>,
        /// The constant, where the error is about one (by name or `@id`, as given).
        constant: Option<String>,
        /// The line that declares that constant; 0 where the kernel declares none.
        line: u32,
        /// What is wrong and what to do: the whole message.
        why: String,
    },

    /// `--lanes LINE` names no line the entry point runs.
    #[error("--lanes {line}: {why}")]
    BadLanes {
        /// The line asked for.
        line: u32,
        /// Why it has nothing to record, and what to name instead.
        why: String,
    },

    /// A `--buffer` or `--len` names no binding, names one twice, or its fill does not fit.
    #[error("{why}")]
    BadFill {
        /// The option that asked for it (`--buffer`, `--len`); none for a default fill.
        flag: Option<Flag>,
        /// The binding (a texture's, for a texel that does not fit), where the kernel has it.
        binding: Option<Slot>,
        /// What is wrong and what to do: the whole message, naming the binding and option.
        why: String,
    },

    /// A `--texture`, `--size`, `--format`, `--sampler` or `--save` names nothing the kernel
    /// uses, does not fit the texture, or asks for what the adapter cannot do.
    #[error("{why}")]
    BadTexture {
        /// The option that asked for it; none for a texture's defaults.
        flag: Option<Flag>,
        /// The texture or sampler, where the kernel has it.
        binding: Option<Slot>,
        /// What is wrong and what to do: the whole message, naming the binding and option.
        why: String,
    },

    /// A texture larger than one of the adapter's limits.
    #[error(
        "{texture} would be {asked} texels {along}, and this adapter's `{limit}` is {max}; pass \
         a smaller --size {name}=..."
    )]
    TextureLimit {
        /// The texture, labelled.
        texture: String,
        /// Its name, for the hint.
        name: String,
        /// The size asked.
        asked: u32,
        /// Which extent: "wide", "high", "deep", "in layers".
        along: &'static str,
        /// The limit's name in `wgpu::Limits`.
        limit: &'static str,
        /// The limit.
        max: u32,
    },

    /// A buffer larger than one of the adapter's limits: checked before anything is made.
    #[error(
        "{buffer} would take {asked} bytes{why}, and this adapter's `{limit}` is {max} bytes; {hint}"
    )]
    BufferLimit {
        /// The buffer, labelled.
        buffer: String,
        /// Its size in bytes.
        asked: u64,
        /// Where the size comes from (" (--len a=N)"), or nothing.
        why: String,
        /// The limit's name in `wgpu::Limits`.
        limit: &'static str,
        /// The limit.
        max: u64,
        /// What to pass instead.
        hint: String,
    },

    /// An index on GL, whose shader compiler leaves indices unchecked, that divlab cannot clamp
    /// into range (see `crate::shaders::bounds`): running it could crash the driver.
    #[error(
        "line {line} of {file}: an index divlab cannot bound for the GL backend, whose driver \
         does not check indices (an out-of-range one can crash the process); profile this \
         kernel with --backend vulkan"
    )]
    UnboundedIndexOnGl {
        /// The kernel's file.
        file: String,
        /// The 1-based line of the access.
        line: u32,
    },

    /// A dispatch divlab cannot count exactly: more workgroups than one dimension takes, or
    /// 2³² or more in all, which drivers count in 32 bits (lavapipe wraps silently, and every
    /// count would be wrong).
    #[error(
        "--dispatch {dispatch} is {asked} workgroups{along}, and {limit} is {max}; profile fewer \
         workgroups (lanes per line are per subgroup, so a part of the grid shows the same \
         divergence)"
    )]
    DispatchTooLarge {
        /// The dispatch as given, `X,Y,Z`.
        dispatch: String,
        /// The workgroups asked for (in one dimension, or in all).
        asked: u64,
        /// ` along x` for one dimension, empty for all.
        along: String,
        /// The limit's name.
        limit: String,
        /// Its value.
        max: u64,
    },

    /// A workgroup larger than the adapter runs: wgpu would refuse the pipeline.
    #[error(
        "the kernel's workgroup size {size:?} ({invocations} invocations) is more than this \
         adapter runs: at most {per_dimension:?} along x, y, z \
         (`max_compute_workgroup_size_*`) and {max_invocations} in all \
         (`max_compute_invocations_per_workgroup`); make @workgroup_size smaller (or the \
         --override that sets it)"
    )]
    WorkgroupTooLarge {
        /// `@workgroup_size`, overrides resolved.
        size: [u32; 3],
        /// Its invocations.
        invocations: u64,
        /// The adapter's limit along each dimension.
        per_dimension: [u32; 3],
        /// The adapter's limit on a workgroup's invocations.
        max_invocations: u32,
    },

    /// llvmpipe ended the instrumented kernel's loops on its own, before the loop cap fired,
    /// however low divlab set the cap: every count would be of a run cut short where nothing
    /// says.
    #[error(
        "llvmpipe ended the kernel's loops on its own (its silent limit of {limit} loop passes \
         a subgroup, its lanes' together and divlab's own) before the loop cap fired, even \
         with the cap lowered to {cap}: the counts would be wrong, so divlab shows none. Pass \
         a lower --loop-cap, or profile on another adapter (`divlab adapters`)"
    )]
    DriverLoopLimit {
        /// llvmpipe's limit.
        limit: u32,
        /// The lowest cap divlab tried.
        cap: u32,
    },

    /// The instrumented kernel's WGSL would nest its blocks past WGSL's limit, which the
    /// user's source keeps: naga writes each `else if` as an `else` block holding an `if`.
    #[error(
        "line {line} of the kernel would sit {depth} braces deep in the instrumented kernel's \
         WGSL, past WGSL's limit of {limit} (naga writes each `else if` as an `else` block holding an `if`, and \
         each loop's body as a block inside the loop, so about 125 `else if`s in a chain, or \
         loops nested about 60 deep, reach it); make the chain a `switch` or a lookup, or nest \
         less"
    )]
    NestedTooDeep {
        /// The deepest line of the kernel.
        line: u32,
        /// How deep naga would write it.
        depth: u32,
        /// WGSL's limit.
        limit: u32,
    },

    /// `--import FILE` is not a profile document this divlab reads.
    #[error("--import {}: {problem}", path.display())]
    BadDocument {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, and what to do.
        problem: String,
    },

    /// divlab's own bug: the instrumented module does not validate, or its counters do not
    /// decode.
    #[error(
        "a divlab bug while profiling entry point `{entry}`: {what}: {detail}; please report \
         it with the kernel"
    )]
    Internal {
        /// The entry point being instrumented.
        entry: String,
        /// What failed.
        what: String,
        /// naga's error, spelled out with every cause.
        detail: String,
    },
}

/// `error` and each of its causes, joined by `: ` (naga's outer messages name only where).
pub(crate) fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}

impl Error {
    /// The 1-based line of the kernel that the error is about, where it has one: the binding
    /// or texture it names, the access GL cannot bound, the line `--lanes` asked for.
    pub fn line(&self) -> Option<u32> {
        let line = match self {
            Self::UnsupportedBinding { line, .. }
            | Self::UnboundedIndexOnGl { line, .. }
            | Self::NestedTooDeep { line, .. }
            | Self::BadLanes { line, .. }
            | Self::BadOverride { line, .. } => *line,
            Self::BadFill {
                binding: Some(slot),
                ..
            }
            | Self::BadTexture {
                binding: Some(slot),
                ..
            } => slot.line,
            _ => 0,
        };
        (line > 0).then_some(line)
    }

    /// Whether this is divlab's own bug rather than something the user can change.
    pub fn is_bug(&self) -> bool {
        matches!(self, Self::Internal { .. })
    }

    /// An [`Error::Internal`] from `error` and all of its causes.
    pub fn internal(entry: &str, what: &str, error: &dyn std::error::Error) -> Self {
        Self::Internal {
            entry: entry.to_owned(),
            what: what.to_owned(),
            detail: with_causes(error),
        }
    }
}

impl From<Error> for crate::Error {
    fn from(e: Error) -> Self {
        Self::Profile(Box::new(e))
    }
}

/// Results of the profiler's own checks.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    /// A module naga rejects, as a divlab bug in the pass would make one: the entry point
    /// returns a value it does not declare.
    fn invalid_module() -> naga::Module {
        let mut module =
            naga::front::wgsl::parse_str("@compute @workgroup_size(1) fn main() {}").unwrap();
        let function = &mut module.entry_points[0].function;
        let one = function.expressions.append(
            naga::Expression::Literal(naga::Literal::U32(1)),
            naga::Span::UNDEFINED,
        );
        function.body = naga::Block::from_vec(vec![naga::Statement::Return { value: Some(one) }]);
        module
    }

    #[test]
    fn an_internal_error_spells_out_naga_and_asks_for_a_report() {
        let e = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&invalid_module())
        .expect_err("the module is invalid");
        let error = Error::internal("main", "the instrumented module does not validate", &e);
        let text = error.to_string();
        assert!(text.contains("entry point `main`"), "{text}");
        assert!(text.contains("please report it with the kernel"), "{text}");
        // Every cause, not only naga's outermost message.
        let mut cause: Option<&dyn std::error::Error> = Some(&e);
        while let Some(c) = cause {
            assert!(text.contains(&c.to_string()), "{text} lacks `{c}`");
            cause = c.source();
        }
        // Not a WGSL error at line 0, and not a usage error either: its own exit code.
        let crate_error = crate::Error::from(error);
        assert_eq!(crate_error.kind(), ErrorKind::Other);
        assert!(!crate_error.to_string().contains(":0:0"), "{crate_error}");
        assert_eq!(crate_error.exit_code(), 4);
        assert_eq!(crate_error.line(), None);
    }

    /// Exit codes (docs/exit-codes.md): 2 for what the user can change, 3 for a GPU that timed
    /// out or was lost, 4 for a divlab bug.
    #[test]
    fn a_divlab_bug_exits_4_apart_from_usage_errors_and_gpu_failures() {
        let bug = crate::Error::from(Error::Internal {
            entry: "main".to_owned(),
            what: "the counters do not decode".to_owned(),
            detail: String::new(),
        });
        let usage = crate::Error::from(Error::BadLanes {
            line: 3,
            why: "no code runs there".to_owned(),
        });
        let timeout = crate::Error::Timeout {
            what: "a dispatch".to_owned(),
            seconds: 60.0,
        };
        let codes = [&bug, &usage, &timeout].map(crate::Error::exit_code);
        assert_eq!(codes, [4, 2, 3]);
    }

    /// The app marks the line a profile error carries in a field, whatever its words say.
    #[test]
    fn a_fill_or_texture_error_names_its_bindings_line() {
        let slot = |line| Slot {
            name: "out".to_owned(),
            group: 0,
            binding: 1,
            line,
        };
        let fill = Error::BadFill {
            flag: Some(Flag::Buffer),
            binding: Some(slot(7)),
            why: "values: gives 3 values but `out` holds 2 scalars".to_owned(),
        };
        let texture = Error::BadTexture {
            flag: Some(Flag::Format),
            binding: Some(slot(9)),
            why: "--format out=r32uint: no line 12 here".to_owned(),
        };
        let unknown = Error::BadTexture {
            flag: Some(Flag::Size),
            binding: None,
            why: "--size nope=...: no texture `nope`".to_owned(),
        };
        assert_eq!(fill.line(), Some(7));
        assert_eq!(crate::Error::from(texture).line(), Some(9));
        assert_eq!(unknown.line(), None);
        assert_eq!(Flag::Override.to_string(), "--override");
    }
}
