//! The scalars a binding holds and its size, from naga's types and layout; and the names
//! messages give address spaces, resources and scalars.

use naga::proc::Layouter;
use naga::{AddressSpace, ArraySize, Handle, Module, Scalar, ScalarKind, TypeInner};

use super::{BufferSize, Shape};

pub(super) fn space_name(space: AddressSpace) -> &'static str {
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

pub(super) fn handle_kind(inner: &TypeInner) -> &'static str {
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
pub(super) fn shape_of(
    module: &Module,
    ty: Handle<naga::Type>,
) -> std::result::Result<Shape, String> {
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
            vector: true,
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
            vector: false,
        }),
        TypeInner::Array { base, size, stride } => {
            let element = Box::new(shape_of(module, base)?);
            let stride = u64::from(stride);
            match size {
                ArraySize::Constant(n) => Ok(Shape::Array {
                    element,
                    count: u64::from(n.get()),
                    stride,
                    vector: false,
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
            .map(|m| {
                let name = m.name.clone().unwrap_or_default();
                Ok((name, u64::from(m.offset), shape_of(module, m.ty)?))
            })
            .collect::<std::result::Result<_, String>>()
            .map(Shape::Struct),
        ref other => Err(handle_kind(other).to_owned()),
    }
}

/// A binding's [`BufferSize`] from naga's layout of its type.
pub(super) fn size_of(module: &Module, layouter: &Layouter, ty: Handle<naga::Type>) -> BufferSize {
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
