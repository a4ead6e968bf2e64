//! What the bound trace (`bound.rs`) finds: a loop's bound and where its value comes from, and
//! how the inputs of a value computed from several are gathered into one source.

use naga::{GlobalVariable, Handle, Scalar};

/// A loop's bound and where it comes from.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct LoopBound {
    /// The bound as the source writes it (`params.count`).
    pub text: String,
    /// The other side of the comparison, which the loop changes (`i`).
    pub counter: String,
    /// Where the counter's value comes from before the loop, where it is a `var` stored just
    /// before it or initialized (`for (var j = row_ptr[i]; ...)`).
    pub start: Option<Source>,
    /// Where its value comes from.
    pub source: Source,
    /// Whether the loop runs while its counter is below the bound (`i < n`, `n > i`), so that
    /// a larger bound runs more trips: `Some(false)` for a floor the counter steps down to,
    /// `None` for `==` or `!=`, where the loop waits for a value (a flag), it does not count
    /// to a bound.
    pub ceiling: Option<bool>,
}

impl LoopBound {
    /// Whether the test is `==` or `!=`.
    pub(super) fn equality(&self) -> bool {
        self.ceiling.is_none()
    }
}

/// Where a loop bound's value comes from.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Source {
    /// One scalar of a buffer, at a place the kernel names with constants.
    Scalar {
        /// The buffer's variable.
        global: Handle<GlobalVariable>,
        /// The place, as WGSL writes it (`params.count`, `info.blocks[2]`).
        path: String,
        /// Its byte offset in the buffer.
        offset: u64,
        /// Its type.
        scalar: Scalar,
        /// Whether the bound is computed from it (`params.n * 2u`) rather than the value itself.
        computed: bool,
    },
    /// An element of a buffer at an index that is not a constant (`bounds[gid.x]`).
    Element {
        /// The buffer's variable.
        global: Handle<GlobalVariable>,
        /// The index, as the source writes it.
        index: String,
    },
    /// A texel of a texture (`textureLoad(spans, id.xy).r`).
    Texel {
        /// The texture's variable.
        global: Handle<GlobalVariable>,
        /// The coordinates, as the source writes them.
        coordinate: String,
    },
    /// The length of a buffer's runtime-sized array (`arrayLength(&data)`).
    Length {
        /// The buffer's variable.
        global: Handle<GlobalVariable>,
    },
    /// A built-in input: `global_invocation_id.x`.
    Builtin(String),
    /// A constant.
    Constant,
    /// `min`, `max` or `clamp` with a constant on the side the loop runs towards
    /// (`dy <= min(1, dims.y - y - 1)`): never past that constant, whatever the other side holds.
    Clamped {
        /// The constant, as the source writes it (`1`).
        limit: String,
    },
    /// A value computed from several inputs (`dims.x * dims.y`, a `var` assigned in several
    /// places): each input in the order the source reads them, constants left out. Holds no
    /// `Inputs` and no `Constant`.
    Inputs(Vec<Source>),
    /// Something the trace does not follow: what it is.
    Other(String),
}

impl Source {
    /// Whether this names an input the user can change (a buffer's scalar, element or length,
    /// a texel, or a built-in).
    pub(super) fn is_input(&self) -> bool {
        !matches!(
            self,
            Source::Constant | Source::Clamped { .. } | Source::Other(_) | Source::Inputs(_)
        )
    }

    /// Whether no input can lengthen the loop: a constant bound, one a constant clamps, or the
    /// subgroup size, which the device fixes.
    pub(super) fn is_fixed(&self) -> bool {
        match self {
            Source::Constant | Source::Clamped { .. } => true,
            Source::Builtin(builtin) => builtin.starts_with("subgroup_size"),
            _ => false,
        }
    }
}

/// Adds `source` to `out`, once, as `Trace::inputs` gathers them: each input of a source that is
/// several itself (a workgroup variable's stores), constants left out.
pub(super) fn add_input(out: &mut Vec<Source>, source: Source) {
    let several = match source {
        Source::Inputs(several) => several,
        one => vec![one],
    };
    for source in several {
        if source != Source::Constant && !out.contains(&source) {
            out.push(source);
        }
    }
}

/// The inputs a value is computed from, as one source: the one input where there is one
/// (computed from it), else [`Source::Inputs`]; `None` where none is an input.
pub(super) fn one_source(mut inputs: Vec<Source>) -> Option<Source> {
    match inputs[..] {
        _ if !inputs.iter().any(Source::is_input) => None,
        [Source::Scalar { .. }] => inputs.pop().map(|mut one| {
            if let Source::Scalar { computed, .. } = &mut one {
                *computed = true;
            }
            one
        }),
        [_] => inputs.pop(),
        _ => Some(Source::Inputs(inputs)),
    }
}
