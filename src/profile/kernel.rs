//! The interface of a user's compute kernel as `divlab profile` sees it, read from naga's IR:
//! the entry point, its workgroup size and the buffers it binds (with their sizes and the
//! scalars they hold, in WGSL layout order); and the host-side resolution of the kernel's
//! pipeline-overridable constants, so that everything after it sees plain constants.
//! Pure naga; no device.

use std::fmt;
use std::ops::ControlFlow;

use naga::proc::Layouter;
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::{AddressSpace, ArraySize, Handle, Module, Scalar, ScalarKind, ShaderStage, TypeInner};

use crate::{Error, Result};

/// What a kernel's compute entry point needs from the host.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelInterface {
    /// The entry point's name.
    pub entry: String,
    /// `@workgroup_size`, with overrides resolved.
    pub workgroup_size: [u32; 3],
    /// The buffers the entry point (or a function it calls) uses, by `@group`, then `@binding`.
    pub bindings: Vec<Binding>,
}

impl KernelInterface {
    /// Invocations in one workgroup.
    pub fn workgroup_invocations(&self) -> u64 {
        self.workgroup_size.iter().map(|&n| u64::from(n)).product()
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
}

impl Binding {
    /// `` `name` (@group(G) @binding(B)) ``, for messages.
    pub fn label(&self) -> String {
        format!(
            "`{}` (@group({}) @binding({}))",
            self.name, self.group, self.binding
        )
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
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Uniform => "uniform",
            Self::StorageRead => "storage, read",
            Self::StorageReadWrite => "storage, read_write",
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
    },
    /// A runtime-sized array: as many elements as the buffer's length says.
    RuntimeArray {
        /// One element.
        element: Box<Shape>,
        /// Bytes from one element to the next.
        stride: u64,
    },
    /// Members at their byte offsets, in declaration order.
    Struct(Vec<(u64, Shape)>),
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
            } => (0..*count)
                .try_for_each(|i| element.for_each_scalar(offset + i * stride, runtime_len, f)),
            Self::RuntimeArray { element, stride } => (0..runtime_len)
                .try_for_each(|i| element.for_each_scalar(offset + i * stride, runtime_len, f)),
            Self::Struct(members) => members
                .iter()
                .try_for_each(|(at, m)| m.for_each_scalar(offset + at, runtime_len, f)),
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
                .map(|(_, m)| m.scalar_count(runtime_len))
                .sum(),
        }
    }
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
    let index = entry_index(module, file, entry)?;
    let ep = &module.entry_points[index];
    if ep.workgroup_size_overrides.is_some() {
        return Err(Error::InvalidSettings(format!(
            "the workgroup size of `{}` in {file} depends on `override` constants that are not \
             resolved yet; resolve them first (`profile::kernel::apply_overrides`)",
            ep.name
        )));
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
    layouter
        .update(module.to_ctx())
        .map_err(|e| Error::InvalidSettings(format!("cannot lay out the types of {file}: {e}")))?;
    let uses = info.get_entry_point(index);

    let mut bindings = Vec::new();
    for (handle, var) in module.global_variables.iter() {
        if uses[handle].is_empty() {
            continue;
        }
        let name = var.name.clone().unwrap_or_else(|| "(unnamed)".to_owned());
        let line = line_of(source, module.global_variables.get_span(handle));
        let declared = match var.binding {
            Some(ref b) => format!("@group({}) @binding({})", b.group, b.binding),
            None => format!("var<{}>", space_name(var.space)),
        };
        let unsupported = |what: &str| {
            Error::InvalidSettings(format!(
                "`{name}` ({declared}, line {line} of {file}) is {what}, which entry point `{}` \
                 uses; divlab profile supports uniform and storage buffers only: profile a \
                 kernel that reads its inputs from buffers",
                ep.name
            ))
        };
        let access = match var.space {
            AddressSpace::Function | AddressSpace::Private | AddressSpace::WorkGroup => continue,
            AddressSpace::Uniform => Access::Uniform,
            AddressSpace::Storage { access } if access.contains(naga::StorageAccess::STORE) => {
                Access::StorageReadWrite
            }
            AddressSpace::Storage { .. } => Access::StorageRead,
            AddressSpace::Handle => {
                return Err(unsupported(handle_kind(&module.types[var.ty].inner)));
            }
            AddressSpace::Immediate => return Err(unsupported("an immediate (push constant)")),
            AddressSpace::TaskPayload
            | AddressSpace::RayPayload
            | AddressSpace::IncomingRayPayload => return Err(unsupported("a payload variable")),
        };
        let Some(ref slot) = var.binding else {
            return Err(unsupported("a buffer without @group/@binding"));
        };
        let shape = shape_of(module, var.ty).map_err(|what| unsupported(&what))?;
        bindings.push(Binding {
            group: slot.group,
            binding: slot.binding,
            name,
            line,
            access,
            size: size_of(module, &layouter, var.ty),
            shape,
        });
    }
    bindings.sort_by_key(|b| (b.group, b.binding));
    Ok(KernelInterface {
        entry: ep.name.clone(),
        workgroup_size: ep.workgroup_size,
        bindings,
    })
}

/// `module` with its pipeline-overridable constants replaced by plain constants: `overrides`
/// gives values by name (or by `@id`), the rest keep their defaults. Uses naga's own
/// `process_overrides`, which also drops what no entry point reaches. An unknown name, a name
/// given twice, or an override with neither a default nor a value is an error that lists the
/// kernel's overridable constants.
pub fn apply_overrides(module: &Module, overrides: &[(String, f64)]) -> Result<Module> {
    let info = validate(module)
        .map_err(|e| Error::InvalidSettings(format!("the kernel does not validate: {e}")))?;
    let mut constants = naga::back::PipelineConstants::default();
    for (name, value) in overrides {
        let found = module.overrides.iter().find(|(_, o)| {
            o.name.as_deref() == Some(name.as_str())
                || o.id.is_some_and(|id| id.to_string() == *name)
        });
        let Some((_, o)) = found else {
            return Err(Error::InvalidSettings(format!(
                "--override {name}=...: the kernel has no `override` constant `{name}`. {}",
                list_overrides(module)
            )));
        };
        // naga keys an override by its @id when it has one, else by its name.
        let key = match (o.id, &o.name) {
            (Some(id), _) => id.to_string(),
            (None, Some(n)) => n.clone(),
            (None, None) => name.clone(),
        };
        if constants.insert(key, *value).is_some() {
            return Err(Error::InvalidSettings(format!(
                "--override gives `{name}` twice; give each constant once"
            )));
        }
    }
    let (resolved, _) = naga::back::pipeline_constants::process_overrides(
        module, &info, None, &constants,
    )
    .map_err(|e| {
        use naga::back::pipeline_constants::PipelineConstantError as E;
        let what = match e {
            E::MissingValue(key) => format!(
                "the `override` constant `{}` has no default value: pass --override {}=VALUE",
                display_key(module, &key),
                display_key(module, &key)
            ),
            other => format!("cannot apply the --override values: {other}"),
        };
        Error::InvalidSettings(format!("{what}. {}", list_overrides(module)))
    })?;
    let mut resolved = resolved.into_owned();
    // naga keeps the (now unreferenced) overrides, with their chosen values as defaults, for
    // override-sized arrays. Where no type needs them, drop them so that written WGSL declares
    // each value once, as a `const`.
    let pending = resolved.types.iter().any(|(_, ty)| {
        matches!(
            ty.inner,
            TypeInner::Array {
                size: ArraySize::Pending(_),
                ..
            } | TypeInner::BindingArray {
                size: ArraySize::Pending(_),
                ..
            }
        )
    });
    if !pending && !resolved.overrides.is_empty() {
        let mut plain = resolved.clone();
        plain.overrides = naga::Arena::new();
        if validate(&plain).is_ok() {
            resolved = plain;
        }
    }
    Ok(resolved)
}

/// A validation error, boxed: naga's is large.
type Invalid = Box<naga::WithSpan<naga::valid::ValidationError>>;

/// Validates as `shaders::check_wgsl` does.
fn validate(module: &Module) -> std::result::Result<ModuleInfo, Invalid> {
    Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(module)
        .map_err(Box::new)
}

/// The index in `module.entry_points` of the compute entry point to profile.
fn entry_index(module: &Module, file: &str, entry: Option<&str>) -> Result<usize> {
    let computes: Vec<(usize, &str)> = module
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, ep)| ep.stage == ShaderStage::Compute)
        .map(|(i, ep)| (i, ep.name.as_str()))
        .collect();
    let names = || {
        computes
            .iter()
            .map(|(_, n)| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match entry {
        Some(wanted) => {
            if let Some(&(i, _)) = computes.iter().find(|(_, n)| *n == wanted) {
                return Ok(i);
            }
            let other = module.entry_points.iter().find(|ep| ep.name == wanted);
            let what = match other {
                Some(ep) => format!("`{wanted}` is a {:?} entry point, not @compute", ep.stage),
                None => format!("{file} has no entry point `{wanted}`"),
            };
            Err(Error::InvalidSettings(if computes.is_empty() {
                format!("--entry {wanted}: {what}, and it has no @compute entry point at all")
            } else {
                format!(
                    "--entry {wanted}: {what}; its @compute entry points are {}",
                    names()
                )
            }))
        }
        None => match computes.as_slice() {
            [(i, _)] => Ok(*i),
            [] => Err(Error::InvalidSettings(format!(
                "{file} has no @compute entry point; divlab profile runs compute kernels \
                 (`@compute @workgroup_size(64) fn main(...)`)"
            ))),
            _ => Err(Error::InvalidSettings(format!(
                "{file} has {} @compute entry points ({}); pick one with --entry NAME",
                computes.len(),
                names()
            ))),
        },
    }
}

/// The 1-based line where `span` starts in `source` (0 when the span is not in it).
fn line_of(source: &str, span: naga::Span) -> u32 {
    let at = span.to_range().map_or(0, |r| r.start);
    if span.is_defined() && at <= source.len() && source.is_char_boundary(at) {
        span.location(source).line_number
    } else {
        0
    }
}

fn space_name(space: AddressSpace) -> &'static str {
    match space {
        AddressSpace::Function => "function",
        AddressSpace::Private => "private",
        AddressSpace::WorkGroup => "workgroup",
        AddressSpace::Uniform => "uniform",
        AddressSpace::Storage { .. } => "storage",
        AddressSpace::Handle => "handle",
        AddressSpace::Immediate => "immediate",
        AddressSpace::TaskPayload => "task_payload",
        AddressSpace::RayPayload => "ray_payload",
        AddressSpace::IncomingRayPayload => "incoming_ray_payload",
    }
}

fn handle_kind(inner: &TypeInner) -> &'static str {
    match inner {
        TypeInner::Image {
            class: naga::ImageClass::Storage { .. },
            ..
        } => "a storage texture",
        TypeInner::Image { .. } => "a texture",
        TypeInner::Sampler { .. } => "a sampler",
        TypeInner::AccelerationStructure { .. } => "an acceleration structure",
        TypeInner::BindingArray { .. } => "a binding array",
        _ => "an opaque resource",
    }
}

/// The scalars of type `ty` as [`Shape`], or what makes it unsupported.
fn shape_of(module: &Module, ty: Handle<naga::Type>) -> std::result::Result<Shape, String> {
    let scalar = |s: Scalar| match s.kind {
        ScalarKind::Bool | ScalarKind::AbstractInt | ScalarKind::AbstractFloat => Err(format!(
            "a buffer holding {s:?}, which is not host-shareable"
        )),
        _ => Ok(Shape::Scalar(s)),
    };
    let components = |n: naga::VectorSize, s: Scalar| -> std::result::Result<Shape, String> {
        Ok(Shape::Array {
            element: Box::new(scalar(s)?),
            count: n as u64,
            stride: u64::from(s.width),
        })
    };
    match module.types[ty].inner {
        TypeInner::Scalar(s) | TypeInner::Atomic(s) => scalar(s),
        TypeInner::Vector { size, scalar: s } => components(size, s),
        TypeInner::Matrix {
            columns,
            rows,
            scalar: s,
        } => Ok(Shape::Array {
            element: Box::new(components(rows, s)?),
            count: columns as u64,
            // Columns are aligned like vectors: vec3 columns take four scalars.
            stride: u64::from(naga::proc::Alignment::from(rows) * u32::from(s.width)),
        }),
        TypeInner::Array { base, size, stride } => {
            let element = Box::new(shape_of(module, base)?);
            let stride = u64::from(stride);
            match size {
                ArraySize::Constant(n) => Ok(Shape::Array {
                    element,
                    count: u64::from(n.get()),
                    stride,
                }),
                ArraySize::Dynamic => Ok(Shape::RuntimeArray { element, stride }),
                ArraySize::Pending(_) => Err(
                    "a buffer whose array size depends on an `override` not resolved yet"
                        .to_owned(),
                ),
            }
        }
        TypeInner::Struct { ref members, .. } => members
            .iter()
            .map(|m| Ok((u64::from(m.offset), shape_of(module, m.ty)?)))
            .collect::<std::result::Result<_, String>>()
            .map(Shape::Struct),
        ref other => Err(handle_kind(other).to_owned()),
    }
}

/// A binding's [`BufferSize`] from naga's layout of its type.
fn size_of(module: &Module, layouter: &Layouter, ty: Handle<naga::Type>) -> BufferSize {
    let min = u64::from(layouter[ty].size);
    let dynamic_stride = |t: Handle<naga::Type>| match module.types[t].inner {
        TypeInner::Array {
            size: ArraySize::Dynamic,
            stride,
            ..
        } => Some(u64::from(stride)),
        _ => None,
    };
    let runtime = match module.types[ty].inner {
        TypeInner::Struct { ref members, .. } => members
            .last()
            .and_then(|m| Some((u64::from(m.offset), dynamic_stride(m.ty)?))),
        _ => dynamic_stride(ty).map(|stride| (0, stride)),
    };
    match runtime {
        Some((base, stride)) => BufferSize::RuntimeArray { base, stride, min },
        None => BufferSize::Fixed(min),
    }
}

/// "Overridable constants: `a` (u32, default 4), ..." for messages.
fn list_overrides(module: &Module) -> String {
    if module.overrides.is_empty() {
        return "The kernel declares no `override` constants.".to_owned();
    }
    let items: Vec<String> = module
        .overrides
        .iter()
        .map(|(_, o)| {
            let name = o.name.as_deref().unwrap_or("(unnamed)");
            let id = o.id.map(|id| format!("@id({id}), ")).unwrap_or_default();
            let ty = match module.types[o.ty].inner {
                TypeInner::Scalar(s) => scalar_name(s),
                _ => "?".to_owned(),
            };
            let default = match o.init.map(|h| &module.global_expressions[h]) {
                None => "no default: required".to_owned(),
                Some(naga::Expression::Literal(l)) => format!("default {}", literal(l)),
                Some(_) => "default computed from other constants".to_owned(),
            };
            format!("`{name}` ({id}{ty}, {default})")
        })
        .collect();
    format!("Overridable constants: {}", items.join(", "))
}

/// The override naga calls `key` (its @id or its name), by name where it has one.
fn display_key(module: &Module, key: &str) -> String {
    module
        .overrides
        .iter()
        .find(|(_, o)| o.id.is_some_and(|id| id.to_string() == key))
        .and_then(|(_, o)| o.name.clone())
        .unwrap_or_else(|| key.to_owned())
}

/// WGSL's name of a scalar type: `f32`, `u32`, `bool`, ...
pub fn scalar_name(s: Scalar) -> String {
    let bits = u32::from(s.width) * 8;
    match s.kind {
        ScalarKind::Sint => format!("i{bits}"),
        ScalarKind::Uint => format!("u{bits}"),
        ScalarKind::Float => format!("f{bits}"),
        ScalarKind::Bool => "bool".to_owned(),
        ScalarKind::AbstractInt => "abstract-int".to_owned(),
        ScalarKind::AbstractFloat => "abstract-float".to_owned(),
    }
}

fn literal(l: &naga::Literal) -> String {
    use naga::Literal as L;
    match *l {
        L::F64(v) | L::AbstractFloat(v) => v.to_string(),
        L::F32(v) => v.to_string(),
        L::F16(v) => v.to_string(),
        L::U16(v) => v.to_string(),
        L::I16(v) => v.to_string(),
        L::U32(v) => v.to_string(),
        L::I32(v) => v.to_string(),
        L::U64(v) => v.to_string(),
        L::I64(v) | L::AbstractInt(v) => v.to_string(),
        L::Bool(v) => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shaders::check_wgsl;

    const KERNEL: &str = "struct Params { n: u32, scale: f32, offset: vec2<f32> }
struct Item { pos: vec3<f32>, id: u32 }
struct Items { count: u32, items: array<Item> }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(1) @binding(0) var<storage, read_write> out: Items;
@group(0) @binding(2) var<storage, read_write> unused: array<u32>;

fn load(i: u32) -> f32 { return input[i] * params.scale; }

@compute @workgroup_size(64, 2)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    out.items[gid.x].pos = vec3<f32>(load(gid.x));
    out.items[gid.x].id = params.n;
}
";

    fn iface(src: &str, entry: Option<&str>) -> Result<KernelInterface> {
        let module = check_wgsl("k.wgsl", src).unwrap();
        interface(&module, src, "k.wgsl", entry)
    }

    fn message(r: Result<impl fmt::Debug>) -> String {
        match r {
            Err(Error::InvalidSettings(m)) => m,
            other => panic!("expected InvalidSettings, got {other:?}"),
        }
    }

    #[track_caller]
    fn assert_mentions(message: &str, needles: &[&str]) {
        for needle in needles {
            assert!(message.contains(needle), "no `{needle}` in: {message}");
        }
    }

    fn runtime(base: u64, stride: u64, min: u64) -> BufferSize {
        BufferSize::RuntimeArray { base, stride, min }
    }

    #[test]
    fn interface_lists_used_buffers_with_sizes_and_lines() {
        let k = iface(KERNEL, None).unwrap();
        assert_eq!(k.entry, "main");
        assert_eq!(k.workgroup_size, [64, 2, 1]);
        assert_eq!(k.workgroup_invocations(), 128);
        let names: Vec<_> = k.bindings.iter().map(|b| b.name.as_str()).collect();
        // `input` is used only through `load`; `unused` not at all. Ordered by (group, binding).
        assert_eq!(names, ["params", "input", "out"]);

        let params = &k.bindings[0];
        assert_eq!((params.group, params.binding, params.line), (0, 0, 5));
        assert_eq!(params.access, Access::Uniform);
        // n at 0, scale at 4, offset (vec2, align 8) at 8: 16 bytes.
        assert_eq!(params.size, BufferSize::Fixed(16));

        let input = &k.bindings[1];
        assert_eq!((input.group, input.binding, input.line), (0, 1, 6));
        assert_eq!(input.access, Access::StorageRead);
        assert_eq!(input.size, runtime(0, 4, 4));
        assert_eq!(input.size.bytes(10), 40);
        assert_eq!(input.size.len_for(40), 10);

        let out = &k.bindings[2];
        assert_eq!((out.group, out.binding, out.line), (1, 0, 7));
        assert_eq!(out.access, Access::StorageReadWrite);
        // Item: pos (vec3, align 16) at 0, id at 12: size 16, stride 16. Items: count at 0,
        // items (align 16) at 16; with one element 32 bytes.
        assert_eq!(out.size, runtime(16, 16, 32));
        assert_eq!(out.size.bytes(3), 16 + 48);
        assert_eq!(out.size.bytes(0), 32);
        assert_eq!(out.shape.scalar_count(3), 1 + 3 * 4);
    }

    #[test]
    fn runtime_struct_never_smaller_than_its_aligned_size() {
        let src = "struct S { a: vec4<f32>, b: array<f32> }
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(1) fn main() { s.b[0] = s.a.x; }
";
        let k = iface(src, None).unwrap();
        // b at 16, stride 4; one element: 20 rounded up to the struct's alignment 16 = 32.
        let size = BufferSize::RuntimeArray {
            base: 16,
            stride: 4,
            min: 32,
        };
        assert_eq!(k.bindings[0].size, size);
        assert_eq!(size.bytes(1), 32);
        assert_eq!(size.bytes(5), 36);
        assert_eq!(size.len_for(32), 4);
    }

    #[test]
    fn matrix_columns_are_padded() {
        let src = "@group(0) @binding(0) var<storage, read_write> m: mat2x3<f32>;
@compute @workgroup_size(1) fn main() { m[0].x = 1.0; }
";
        let k = iface(src, None).unwrap();
        assert_eq!(k.bindings[0].size, BufferSize::Fixed(32));
        let mut offsets = Vec::new();
        let _ = k.bindings[0].shape.for_each_scalar(0, 0, &mut |o, _| {
            offsets.push(o);
            ControlFlow::Continue(())
        });
        assert_eq!(offsets, [0, 4, 8, 16, 20, 24]);
    }

    #[test]
    fn texture_is_rejected_with_its_name_and_line() {
        let src = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;

@group(0) @binding(1) var tex: texture_2d<f32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    out[gid.x] = textureLoad(tex, vec2<u32>(gid.x, 0u), 0).x;
}
";
        let m = message(iface(src, None));
        assert_mentions(
            &m,
            &[
                "`tex`",
                "@group(0) @binding(1)",
                "line 3",
                "a texture",
                "uniform and storage buffers only",
            ],
        );
    }

    #[test]
    fn unused_texture_is_fine() {
        let src = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var tex: texture_2d<f32>;
@compute @workgroup_size(8) fn main() { out[0] = 1.0; }
";
        assert_eq!(iface(src, None).unwrap().bindings.len(), 1);
    }

    #[test]
    fn no_compute_entry_is_an_error() {
        let src = "@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n";
        let m = message(iface(src, None));
        assert!(m.contains("no @compute entry point"), "{m}");
        let m = message(iface(src, Some("fs")));
        assert!(m.contains("`fs` is a Fragment entry point"), "{m}");
    }

    const TWO: &str = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(4) fn first() { out[0] = 1u; }
@compute @workgroup_size(8, 8) fn second() { out[1] = 2u; }
";

    #[test]
    fn two_entries_need_entry() {
        let m = message(iface(TWO, None));
        assert!(m.contains("2 @compute entry points"), "{m}");
        assert!(m.contains("`first`") && m.contains("`second`"), "{m}");
        assert!(m.contains("--entry"), "{m}");
        let k = iface(TWO, Some("second")).unwrap();
        assert_eq!((k.entry.as_str(), k.workgroup_size), ("second", [8, 8, 1]));
    }

    #[test]
    fn unknown_entry_lists_compute_entries() {
        let m = message(iface(TWO, Some("third")));
        assert!(m.contains("--entry third"), "{m}");
        assert!(m.contains("no entry point `third`"), "{m}");
        assert!(m.contains("`first`, `second`"), "{m}");
    }

    const OVERRIDES: &str = "override BLOCK: u32 = 64u;
@id(7) override scale: f32 = 1.5;
override n: u32;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(BLOCK)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x < n { out[gid.x] = scale; }
}
";

    #[test]
    fn overrides_become_constants() {
        let module = check_wgsl("k.wgsl", OVERRIDES).unwrap();
        let overrides = [("BLOCK".to_owned(), 32.0), ("n".to_owned(), 100.0)];
        let resolved = apply_overrides(&module, &overrides).unwrap();
        assert!(resolved.overrides.is_empty());
        let value = |name: &str| {
            let (_, c) = resolved
                .constants
                .iter()
                .find(|(_, c)| c.name.as_deref() == Some(name))
                .unwrap();
            resolved.global_expressions[c.init].clone()
        };
        assert_eq!(
            value("n"),
            naga::Expression::Literal(naga::Literal::U32(100))
        );
        assert_eq!(
            value("scale"),
            naga::Expression::Literal(naga::Literal::F32(1.5))
        );
        let k = interface(&resolved, OVERRIDES, "k.wgsl", None).unwrap();
        assert_eq!(k.workgroup_size, [32, 1, 1]);
        assert_eq!(k.bindings[0].line, 4);
        // Written back as WGSL, each value is one plain `const`, and the text validates.
        let info = validate(&resolved).unwrap();
        let flags = naga::back::wgsl::WriterFlags::empty();
        let text = naga::back::wgsl::write_string(&resolved, &info, flags).unwrap();
        assert!(!text.contains("override"), "{text}");
        assert!(text.contains("const n: u32 = 100u;"), "{text}");
        assert!(text.contains("@workgroup_size(32, 1, 1)"), "{text}");
        check_wgsl("written.wgsl", &text).unwrap();
        // By @id too.
        let by_id = [("7".to_owned(), 2.0), ("n".to_owned(), 1.0)];
        assert!(apply_overrides(&module, &by_id).is_ok());
    }

    #[test]
    fn unresolved_workgroup_size_is_an_error() {
        let module = check_wgsl("k.wgsl", OVERRIDES).unwrap();
        let m = message(interface(&module, OVERRIDES, "k.wgsl", None));
        assert!(m.contains("apply_overrides"), "{m}");
    }

    #[test]
    fn unknown_override_lists_the_overridable_constants() {
        let module = check_wgsl("k.wgsl", OVERRIDES).unwrap();
        let m = message(apply_overrides(&module, &[("BLOK".to_owned(), 1.0)]));
        assert_mentions(
            &m,
            &[
                "no `override` constant `BLOK`",
                "`BLOCK` (u32, default 64)",
                "`scale` (@id(7), f32, default 1.5)",
                "`n` (u32, no default: required)",
            ],
        );
    }

    #[test]
    fn missing_override_value_says_which() {
        let module = check_wgsl("k.wgsl", OVERRIDES).unwrap();
        let m = message(apply_overrides(&module, &[]));
        assert!(m.contains("`n` has no default value"), "{m}");
        assert!(m.contains("--override n=VALUE"), "{m}");
        let m = message(apply_overrides(
            &module,
            &[("n".to_owned(), 1.0), ("n".to_owned(), 2.0)],
        ));
        assert!(m.contains("twice"), "{m}");
    }

    #[test]
    fn no_overrides_leaves_module_alone() {
        let module = check_wgsl("k.wgsl", KERNEL).unwrap();
        let resolved = apply_overrides(&module, &[]).unwrap();
        assert_eq!(
            resolved.global_variables.len(),
            module.global_variables.len()
        );
        let m = message(apply_overrides(&module, &[("x".to_owned(), 1.0)]));
        assert!(m.contains("declares no `override` constants"), "{m}");
    }
}
