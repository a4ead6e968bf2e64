//! The interface of a user's compute kernel as `divlab profile` sees it, read from naga's IR:
//! the entry point (`entry.rs`), its workgroup size and the buffers it binds, with their sizes
//! and the scalars they hold in WGSL layout order (`shape.rs`); and the host-side resolution
//! of the kernel's pipeline-overridable constants (`overrides.rs`), so that everything after
//! it sees plain constants; and the [`Kernel`] that holds them all, parsed once (`parsed.rs`).
//! Pure naga; no device.

mod entry;
mod overrides;
mod parsed;
mod resources;
mod shape;
#[cfg(test)]
mod tests;

use std::fmt;
use std::ops::ControlFlow;

use naga::proc::Layouter;
use naga::valid::{Capabilities, GlobalUse, ModuleInfo, ValidationFlags, Validator};
use naga::{AddressSpace, Module, Scalar};

pub use self::overrides::apply_overrides;
pub(crate) use self::overrides::literal_u32;
pub use self::parsed::Kernel;
pub use self::resources::{
    SampleKind, SamplerBinding, TextureAccess, TextureBinding, TextureClass, TextureDim,
    format_name,
};
pub use self::shape::scalar_name;
use self::shape::{shape_of, size_of, space_name};
use super::error::Error as ProfileError;
use crate::source_map::SourceMap;
use crate::{Error, Result};

/// What a kernel's compute entry point needs from the host.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelInterface {
    /// The entry point's name.
    pub entry: String,
    /// `@workgroup_size`, with overrides resolved.
    pub workgroup_size: [u32; 3],
    /// The buffers the entry point (or a function it calls) uses, by `@group`, then `@binding`,
    /// and last its immediates (`var<immediate>`), which have no slot.
    pub bindings: Vec<Binding>,
    /// The textures it uses, by `@group`, then `@binding`.
    pub textures: Vec<TextureBinding>,
    /// The samplers it uses, by `@group`, then `@binding`.
    pub samplers: Vec<SamplerBinding>,
}

impl KernelInterface {
    /// Invocations in one workgroup.
    pub fn workgroup_invocations(&self) -> u64 {
        self.workgroup_size.iter().map(|&n| u64::from(n)).product()
    }

    /// The bind groups the kernel's own resources use.
    pub fn groups(&self) -> impl Iterator<Item = u32> + '_ {
        let buffers = self
            .bindings
            .iter()
            .filter(|b| b.access != Access::Immediate)
            .map(|b| b.group);
        let textures = self.textures.iter().map(|t| t.group);
        buffers
            .chain(textures)
            .chain(self.samplers.iter().map(|s| s.group))
    }

    /// The immediates block (`var<immediate>`), if the kernel has one.
    pub fn immediate(&self) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.access == Access::Immediate)
    }
}

/// One buffer binding of the kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The variable's name.
    pub name: String,
    /// 1-based line of the variable's declaration.
    pub line: u32,
    /// Its address space and access mode.
    pub access: Access,
    /// Its size in bytes, or how that size follows from a runtime-sized array's length.
    pub size: BufferSize,
    /// The scalars it holds, in WGSL layout order (what `fill` writes).
    pub shape: Shape,
    /// Whether the entry point (or a function it calls) reads what it writes here: it stores
    /// to it and loads from it, or changes it with an atomic, as naga's analysis reads it. Its
    /// work can then follow what an earlier run left, so each timed run puts it back first.
    pub feeds_back: bool,
}

impl Binding {
    /// `` `name` (@group(G) @binding(B)) ``, for messages.
    pub fn label(&self) -> String {
        if self.access == Access::Immediate {
            return format!("`{}` (var<immediate>)", self.name);
        }
        format!(
            "`{}` (@group({}) @binding({}))",
            self.name, self.group, self.binding
        )
    }

    /// Its name, slot and line, for an error about it.
    pub fn slot(&self) -> crate::profile::Slot {
        resources::slot(&self.name, self.group, self.binding, self.line)
    }
}

/// How a binding is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage>` or `var<storage, read>`.
    StorageRead,
    /// `var<storage, read_write>`.
    StorageReadWrite,
    /// `var<immediate>`: immediate data (push constants), set with the dispatch; its
    /// `group` and `binding` mean nothing.
    Immediate,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Uniform => "uniform",
            Self::StorageRead => "storage, read",
            Self::StorageReadWrite => "storage, read_write",
            Self::Immediate => "immediate",
        })
    }
}

/// A binding's size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferSize {
    /// A fixed-size type of this many bytes.
    Fixed(u64),
    /// A runtime-sized array (`array<T>`, bare or as the last member of a struct): `len`
    /// elements take `base + stride * len` bytes, and never fewer than `min`, the type's size
    /// with one element (a struct rounds up to its alignment), which WebGPU requires.
    RuntimeArray {
        /// Offset of the array: 0 for a bare `array<T>`, else the last member's offset.
        base: u64,
        /// The array's stride.
        stride: u64,
        /// The type's size with one element: the minimum binding size.
        min: u64,
    },
}

impl BufferSize {
    /// Bytes of a buffer whose runtime-sized array has `len` elements (`len` is ignored for a
    /// fixed size), rounded up to a multiple of 4 as buffer sizes must be.
    pub fn bytes(&self, len: u64) -> u64 {
        let raw = match *self {
            Self::Fixed(n) => n,
            Self::RuntimeArray { base, stride, min } => {
                base.saturating_add(stride.saturating_mul(len)).max(min)
            }
        };
        raw.saturating_add(3) & !3
    }

    /// Elements of the runtime-sized array that `bytes` bytes hold (0 for a fixed size).
    pub fn len_for(&self, bytes: u64) -> u64 {
        match *self {
            Self::Fixed(_) => 0,
            Self::RuntimeArray { base, stride, .. } => bytes.saturating_sub(base) / stride.max(1),
        }
    }

    /// Whether the size follows from a runtime-sized array's length.
    pub fn is_runtime(&self) -> bool {
        matches!(self, Self::RuntimeArray { .. })
    }
}

/// A vector's components as WGSL names them.
pub const COMPONENTS: [&str; 4] = ["x", "y", "z", "w"];

/// A host-shareable type reduced to where its scalars lie, enough to write a buffer's scalars
/// in WGSL layout order: struct members in order, arrays element by element, vectors component
/// by component, matrices column by column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One scalar (an atomic counts as its scalar).
    Scalar(Scalar),
    /// `count` copies of `element`, `stride` bytes apart: a fixed-size array, a vector's
    /// components, a matrix's columns.
    Array {
        /// One element.
        element: Box<Shape>,
        /// How many.
        count: u64,
        /// Bytes from one element to the next.
        stride: u64,
        /// Whether these are a vector's components, which WGSL names `.x` to `.w`.
        vector: bool,
    },
    /// A runtime-sized array: as many elements as the buffer's length says.
    RuntimeArray {
        /// One element.
        element: Box<Shape>,
        /// Bytes from one element to the next.
        stride: u64,
    },
    /// Members with their names, at their byte offsets, in declaration order.
    Struct(Vec<(String, u64, Shape)>),
}

impl Shape {
    /// Calls `f(offset, scalar)` for each scalar in layout order, offsets from `offset`, with
    /// `runtime_len` elements in a runtime-sized array; stops when `f` breaks.
    pub fn for_each_scalar(
        &self,
        offset: u64,
        runtime_len: u64,
        f: &mut dyn FnMut(u64, Scalar) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        match self {
            Self::Scalar(scalar) => f(offset, *scalar),
            Self::Array {
                element,
                count,
                stride,
                ..
            } => (0..*count)
                .try_for_each(|i| element.for_each_scalar(offset + i * stride, runtime_len, f)),
            Self::RuntimeArray { element, stride } => (0..runtime_len)
                .try_for_each(|i| element.for_each_scalar(offset + i * stride, runtime_len, f)),
            Self::Struct(members) => members
                .iter()
                .try_for_each(|(_, at, m)| m.for_each_scalar(offset + at, runtime_len, f)),
        }
    }

    /// How many scalars [`Shape::for_each_scalar`] visits.
    pub fn scalar_count(&self, runtime_len: u64) -> u64 {
        match self {
            Self::Scalar(_) => 1,
            Self::Array { element, count, .. } => {
                count.saturating_mul(element.scalar_count(runtime_len))
            }
            Self::RuntimeArray { element, .. } => {
                runtime_len.saturating_mul(element.scalar_count(runtime_len))
            }
            Self::Struct(members) => members
                .iter()
                .map(|(_, _, m)| m.scalar_count(runtime_len))
                .sum(),
        }
    }

    /// The byte offset and type of the one scalar that `place` names, as WGSL writes it after
    /// the variable's name (`.dims.x`, `.blocks[2].n`, `[7]`, and `` for a bare scalar).
    /// A runtime-sized array's index is not checked against a length here.
    pub fn scalar_at(&self, place: &str) -> std::result::Result<(u64, Scalar), String> {
        match self.place_at(place)? {
            (offset, Self::Scalar(s)) => Ok((offset, *s)),
            (_, shape) => Err(format!(
                "`{place}` holds {} scalars, not one: name one of them (a member `.name`, a \
                 component `.x`, an element `[i]`), or give them all as values:...",
                shape.scalar_count(1)
            )),
        }
    }

    /// The first `count` scalars under `place` in layout order (a vector's components, a
    /// struct's members, an array's elements), each with its own place, byte offset and type:
    /// exactly as many as `place` holds, or as many as `count` from a runtime-sized array.
    #[allow(clippy::type_complexity)]
    pub fn scalars_at(
        &self,
        place: &str,
        count: usize,
    ) -> std::result::Result<Vec<(String, u64, Scalar)>, String> {
        let (offset, shape) = self.place_at(place)?;
        let mut out = Vec::new();
        shape.places(&mut place.trim().to_owned(), offset, count, &mut out);
        // A runtime-sized array holds as many as given; anything else exactly its own.
        let holds = shape.scalar_count(1);
        if !shape.runtime_sized() && count as u64 != holds {
            return Err(format!(
                "{count} values for `{place}`, which holds {holds} scalars: give one per \
                 scalar, in layout order"
            ));
        }
        Ok(out)
    }

    /// Whether a runtime-sized array is part of it.
    fn runtime_sized(&self) -> bool {
        match self {
            Self::Scalar(_) => false,
            Self::RuntimeArray { .. } => true,
            Self::Array { element, .. } => element.runtime_sized(),
            Self::Struct(members) => members.iter().any(|(.., m)| m.runtime_sized()),
        }
    }

    /// Pushes each scalar's place (from `place`), offset and type onto `out` in layout order,
    /// until it holds `most`.
    fn places(
        &self,
        place: &mut String,
        offset: u64,
        most: usize,
        out: &mut Vec<(String, u64, Scalar)>,
    ) {
        type Children<'s> = Box<dyn Iterator<Item = (String, u64, &'s Shape)> + 's>;
        let children: Children<'_> = match self {
            Self::Scalar(s) => {
                out.extend((out.len() < most).then(|| (place.clone(), offset, *s)));
                return;
            }
            Self::Struct(members) => Box::new(
                (members.iter()).map(move |(name, at, m)| (format!(".{name}"), offset + at, m)),
            ),
            Self::Array {
                element,
                count,
                stride,
                vector,
            } => Box::new((0..*count).map(move |i| {
                let step = match COMPONENTS.get(i as usize) {
                    Some(c) if *vector => format!(".{c}"),
                    _ => format!("[{i}]"),
                };
                (step, offset + i * stride, &**element)
            })),
            // As many elements as the values need.
            Self::RuntimeArray { element, stride } => {
                Box::new((0u64..).map(move |i| (format!("[{i}]"), offset + i * stride, &**element)))
            }
        };
        for (step, at, inner) in children {
            let before = out.len();
            if before >= most {
                break;
            }
            let len = place.len();
            place.push_str(&step);
            inner.places(place, at, most, out);
            place.truncate(len);
            if out.len() == before {
                break; // a shape with no scalars (not valid WGSL): nothing further either
            }
        }
    }

    /// The byte offset and shape that `place` names (see [`Shape::scalar_at`]).
    fn place_at(&self, place: &str) -> std::result::Result<(u64, &Shape), String> {
        let (mut shape, mut offset, mut rest) = (self, 0u64, place.trim());
        while !rest.is_empty() {
            let (step, after) = match rest.strip_prefix('[') {
                Some(index) => {
                    let (index, after) = index
                        .split_once(']')
                        .ok_or_else(|| format!("`{place}`: a `[` without its `]`"))?;
                    (Step::Index(index.trim()), after)
                }
                None => {
                    let name = rest.strip_prefix('.').ok_or_else(|| {
                        format!("`{place}`: expected `.name` or `[index]` at `{rest}`")
                    })?;
                    let end = name.find(['.', '[']).unwrap_or(name.len());
                    (Step::Name(name[..end].trim()), &name[end..])
                }
            };
            let (at, inner) = shape
                .step(step)
                .map_err(|why| format!("`{place}`: {why}"))?;
            offset += at;
            shape = inner;
            rest = after;
        }
        Ok((offset, shape))
    }

    /// The offset and shape that one step of a place (`.name`, `[i]`, a component) reaches.
    fn step(&self, step: Step<'_>) -> std::result::Result<(u64, &Shape), String> {
        match (self, step) {
            (Self::Struct(members), Step::Name(name)) => (members.iter())
                .find(|(n, ..)| n == name)
                .map(|(_, at, m)| (*at, m))
                .ok_or_else(|| {
                    let names: Vec<&str> = members.iter().map(|(n, ..)| n.as_str()).collect();
                    format!("no member `{name}` (the members: {})", names.join(", "))
                }),
            // A vector's components by name (a vector is an array of up to four scalars).
            (
                Self::Array {
                    element,
                    count,
                    stride,
                    ..
                },
                Step::Name(name),
            ) if matches!(**element, Self::Scalar(_)) && *count <= 4 => {
                match COMPONENTS.iter().position(|c| *c == name) {
                    Some(i) => nth(element, *stride, Some(*count), i as u64),
                    None => Err(format!(
                        "`.{name}` names no component of a vector: use .x, .y, .z or .w"
                    )),
                }
            }
            (
                Self::Array {
                    element,
                    count,
                    stride,
                    ..
                },
                Step::Index(index),
            ) => nth(element, *stride, Some(*count), parse_index(index)?),
            (Self::RuntimeArray { element, stride }, Step::Index(index)) => {
                nth(element, *stride, None, parse_index(index)?)
            }
            (_, Step::Name(name)) => Err(format!("`.{name}` names a member of no struct")),
            (_, Step::Index(index)) => Err(format!("`[{index}]` indexes no array")),
        }
    }
}

/// Element `index` of an array of `count` (`None`: runtime-sized) `element`s `stride` apart.
fn nth(
    element: &Shape,
    stride: u64,
    count: Option<u64>,
    index: u64,
) -> std::result::Result<(u64, &Shape), String> {
    match count {
        Some(count) if index >= count => {
            Err(format!("index {index} is past the end ({count} elements)"))
        }
        _ => Ok((index.saturating_mul(stride), element)),
    }
}

/// One step of a place: `.name` (a member or a component) or `[i]`.
#[derive(Clone, Copy)]
enum Step<'a> {
    Name(&'a str),
    Index(&'a str),
}

fn parse_index(index: &str) -> std::result::Result<u64, String> {
    index
        .parse()
        .map_err(|_| format!("`[{index}]` is not a constant index (an unsigned integer)"))
}

/// The interface of `entry` (or the only `@compute` entry point) of `module`, which should
/// have its overrides resolved ([`apply_overrides`]). `source` is the text naga parsed (for
/// line numbers) and `file` names it in messages.
pub fn interface(
    module: &Module,
    source: &str,
    file: &str,
    entry: Option<&str>,
) -> Result<KernelInterface> {
    let index = entry::entry_index(module, file, entry)?;
    let ep = &module.entry_points[index];
    if ep.workgroup_size_overrides.is_some() {
        return Err(ProfileError::BadOverride {
            flag: None,
            constant: None,
            line: 0,
            why: format!(
                "the workgroup size of `{}` in {file} depends on `override` constants that are \
                 not resolved yet; resolve them first (`profile::kernel::apply_overrides`)",
                ep.name
            ),
        }
        .into());
    }
    let info = validate(module).map_err(|e| {
        let loc = e.location(source);
        Error::InvalidWgsl {
            file: file.to_owned(),
            line: loc.map_or(0, |l| l.line_number),
            column: loc.map_or(0, |l| l.line_position),
            message: e
                .emit_to_string_with_path(source, file)
                .trim_end()
                .to_owned(),
        }
    })?;
    let mut layouter = Layouter::default();
    layouter.update(module.to_ctx()).map_err(|e| {
        ProfileError::internal(&ep.name, &format!("cannot lay out the types of {file}"), &e)
    })?;
    let uses = info.get_entry_point(index);
    let lines = SourceMap::new(source);

    let mut bindings = Vec::new();
    let mut textures = Vec::new();
    let mut samplers = Vec::new();
    for (handle, var) in module.global_variables.iter() {
        if uses[handle].is_empty() {
            continue;
        }
        let name = var.name.clone().unwrap_or_else(|| "(unnamed)".to_owned());
        let line = lines
            .span_line(module.global_variables.get_span(handle))
            .unwrap_or(0);
        let declared = match var.binding {
            Some(ref b) => format!("@group({}) @binding({})", b.group, b.binding),
            None => format!("var<{}>", space_name(var.space)),
        };
        let unsupported = |what: &str| -> Error {
            ProfileError::UnsupportedBinding {
                name: name.clone(),
                declared: declared.clone(),
                line,
                file: file.to_owned(),
                what: what.to_owned(),
                entry: ep.name.clone(),
            }
            .into()
        };
        let access = match var.space {
            AddressSpace::Function | AddressSpace::Private | AddressSpace::WorkGroup => continue,
            AddressSpace::Uniform => Access::Uniform,
            AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE) => {
                Access::StorageReadWrite
            }
            AddressSpace::Storage { .. } => Access::StorageRead,
            AddressSpace::Handle => {
                let Some(ref slot) = var.binding else {
                    return Err(unsupported("a resource without @group/@binding"));
                };
                let filtered = uses.sampling_set.iter().any(|key| key.image == handle);
                let made = resources::handle_binding(module, var.ty, slot, &name, line, filtered);
                match made.map_err(unsupported)? {
                    resources::Handle::Texture(t) => textures.push(t),
                    resources::Handle::Sampler(s) => samplers.push(s),
                }
                continue;
            }
            AddressSpace::Immediate => Access::Immediate,
            AddressSpace::TaskPayload
            | AddressSpace::RayPayload
            | AddressSpace::IncomingRayPayload => return Err(unsupported("a payload variable")),
        };
        let (group, binding) = match (access, &var.binding) {
            // After every slot: an immediates block has none.
            (Access::Immediate, _) => (u32::MAX, 0),
            (_, Some(slot)) => (slot.group, slot.binding),
            (_, None) => return Err(unsupported("a buffer without @group/@binding")),
        };
        let shape = shape_of(module, var.ty).map_err(|what| unsupported(&what))?;
        bindings.push(Binding {
            group,
            binding,
            name,
            line,
            access,
            size: size_of(module, &layouter, var.ty),
            shape,
            feeds_back: uses[handle].contains(GlobalUse::READ | GlobalUse::WRITE)
                || uses[handle].contains(GlobalUse::ATOMIC),
        });
    }
    bindings.sort_by_key(|b| (b.group, b.binding));
    textures.sort_by_key(|t| (t.group, t.binding));
    samplers.sort_by_key(|s| (s.group, s.binding));
    Ok(KernelInterface {
        entry: ep.name.clone(),
        workgroup_size: ep.workgroup_size,
        bindings,
        textures,
        samplers,
    })
}

/// A validation error, boxed: naga's is large.
pub(super) type Invalid = Box<naga::WithSpan<naga::valid::ValidationError>>;

/// Validates as `shaders::check_wgsl` does.
pub(super) fn validate(module: &Module) -> std::result::Result<ModuleInfo, Invalid> {
    Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(module)
        .map_err(Box::new)
}
