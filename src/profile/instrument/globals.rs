//! The globals the pass adds to the module: the counters buffer, the private counts and the
//! function that flushes them, `--lanes`' buffer, the private copies of entry builtins, and
//! the types they need.

use naga::{
    AddressSpace, ArraySize, Function, GlobalVariable, Handle, Module, ResourceBinding, Scalar,
    Span, StorageAccess, Type, TypeInner,
};

use super::InstrumentOptions;
use crate::Result;
use crate::profile::Error as ProfileError;

/// Everything the pass added to the module, by handle.
pub(super) struct Globals {
    /// `u32`, `i32` and `bool`, the types of the pass's own expressions (naga's arena holds
    /// each type once, so these are the kernel's own where it has them).
    pub(super) u32_ty: Handle<Type>,
    pub(super) i32_ty: Handle<Type>,
    pub(super) bool_ty: Handle<Type>,
    /// `divlab_counters`, the buffer the host decodes, and the private stripe base that picks
    /// the invocation's copy of it.
    pub(super) counters: CounterBuffer,
    /// The entry argument (and struct member) holding `workgroup_id`, which the stripe hashes.
    pub(super) workgroup_arg: EntryArg,
    /// `var<private> divlab_local: array<u32, K>`: each invocation's own counts of the blocks
    /// and branches in loops, added into `counters` once, when it leaves the kernel. Its
    /// length is set once every site is numbered ([`Globals::size_local`]).
    pub(super) local: Handle<GlobalVariable>,
    /// `divlab_flush()`, which adds them; its body is written last.
    pub(super) flush_fn: Handle<Function>,
    /// With `--lanes`: the buffer and the private copies of the entry's builtins.
    pub(super) lanes: Option<LaneGlobals>,
    /// With subgroups: `var<private> divlab_lane: u32`, the lane's bit in a ballot, which the
    /// elections compare, and the entry argument (and struct member) it is copied from,
    /// `subgroup_invocation_id`. There is none in a 2-D or 3-D workgroup, where naga forbids
    /// that builtin: there the lane's bit is its rank, `subgroupExclusiveAdd(1u)` at the entry (where
    /// every lane of the subgroup is active, so a lane's rank is its `subgroup_invocation_id`).
    pub(super) lane_id: Option<(Handle<GlobalVariable>, Option<EntryArg>)>,
    /// With subgroups: the entry argument holding `subgroup_size` (allowed in every shape).
    pub(super) subgroup_size: Option<EntryArg>,
    /// `var<private> divlab_trips: u32`: the trips the invocation ran of all its loops
    /// together, which the loop cap bounds.
    pub(super) trips: Handle<GlobalVariable>,
    /// `var<private> divlab_capped: bool`: the invocation has recorded its cap hit. (Testing
    /// `trips == cap + 1` instead missed it where divlab's own rounds after a hoisted loop
    /// stepped `trips` past that value.)
    pub(super) capped: Handle<GlobalVariable>,
    /// The workgroup is 2-D or 3-D (`@workgroup_size` y or z above 1).
    pub(super) multi_dim: bool,
    /// `vec4<u32>`, a ballot's type.
    pub(super) ballot_ty: Handle<Type>,
}

impl Globals {
    /// Adds divlab's globals to `module`, whose only entry point is the kernel's. Fails when
    /// the kernel already uses a binding divlab needs.
    pub fn add(module: &mut Module, opts: &InstrumentOptions) -> Result<Self> {
        let multi_dim = module.entry_points[0].workgroup_size[1..]
            .iter()
            .any(|&n| n > 1);
        let u32_ty = scalar_type(module, Scalar::U32);
        let i32_ty = scalar_type(module, Scalar::I32);
        let bool_ty = scalar_type(module, Scalar::BOOL);
        let atomic_ty = module.types.insert(
            Type {
                name: None,
                inner: TypeInner::Atomic(Scalar::U32),
            },
            Span::UNDEFINED,
        );
        let array_ty = module.types.insert(
            Type {
                name: None,
                inner: TypeInner::Array {
                    base: atomic_ty,
                    size: ArraySize::Dynamic,
                    stride: 4,
                },
            },
            Span::UNDEFINED,
        );
        let counters = CounterBuffer {
            buffer: buffer_global(
                module,
                "divlab_counters",
                opts.counters_group,
                0,
                "its profile counters",
                array_ty,
            )?,
            stripe: private_global(module, "divlab_stripe", u32_ty),
        };
        let vec3_ty = vector_type(module, naga::VectorSize::Tri);
        let workgroup_arg = entry_builtin(
            module,
            naga::BuiltIn::WorkGroupId,
            vec3_ty,
            "divlab_workgroup_id",
        );

        // The private counts' length is known once every site is numbered; the type is set then,
        // and so is the body of the function that flushes them.
        let local = private_global(module, "divlab_local", u32_ty);
        let flush_fn = module.functions.append(
            Function {
                name: Some("divlab_flush".to_owned()),
                ..Function::default()
            },
            Span::UNDEFINED,
        );

        let lanes = match opts.lanes_block {
            Some(_) if opts.subgroups => Some(lane_globals(module, opts, array_ty, u32_ty)?),
            _ => None,
        };

        let lane_id = opts.subgroups.then(|| {
            let global = private_global(module, "divlab_lane", u32_ty);
            let arg = (!multi_dim).then(|| {
                entry_builtin(
                    module,
                    naga::BuiltIn::SubgroupInvocationId,
                    u32_ty,
                    "divlab_subgroup_invocation_id",
                )
            });
            (global, arg)
        });
        let subgroup_size = opts.subgroups.then(|| {
            entry_builtin(
                module,
                naga::BuiltIn::SubgroupSize,
                u32_ty,
                "divlab_subgroup_size",
            )
        });
        let trips = private_global(module, "divlab_trips", u32_ty);
        let capped = private_global(module, "divlab_capped", bool_ty);
        Ok(Self {
            u32_ty,
            i32_ty,
            bool_ty,
            counters,
            workgroup_arg,
            local,
            flush_fn,
            lanes,
            lane_id,
            subgroup_size,
            trips,
            capped,
            multi_dim,
            ballot_ty: vector_type(module, naga::VectorSize::Quad),
        })
    }

    /// Gives the private counts their length, `words` (at least one).
    pub fn size_local(&self, module: &mut Module, words: u32) {
        let local_ty = module.types.insert(
            Type {
                name: None,
                inner: TypeInner::Array {
                    base: self.u32_ty,
                    size: ArraySize::Constant(
                        std::num::NonZeroU32::new(words.max(1)).expect("at least one"),
                    ),
                    stride: 4,
                },
            },
            Span::UNDEFINED,
        );
        module.global_variables.get_mut(self.local).ty = local_ty;
    }
}

/// The counters buffer as the kernel addresses it: word `w` of the invocation's stripe is
/// `buffer[stripe + w]`.
#[derive(Clone, Copy)]
pub(super) struct CounterBuffer {
    pub buffer: Handle<GlobalVariable>,
    /// `var<private> divlab_stripe: u32`: the first word of the copy this invocation counts
    /// into, set at the kernel's entry (`Pass::keep_stripe`).
    pub stripe: Handle<GlobalVariable>,
}

fn vector_type(module: &mut Module, size: naga::VectorSize) -> Handle<Type> {
    module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Vector {
                size,
                scalar: Scalar::U32,
            },
        },
        Span::UNDEFINED,
    )
}

fn scalar_type(module: &mut Module, scalar: Scalar) -> Handle<Type> {
    module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Scalar(scalar),
        },
        Span::UNDEFINED,
    )
}

/// An entry point argument, and the member of it when it is a struct: where a builtin comes in.
pub(super) type EntryArg = (u32, Option<u32>);

/// What `--lanes` adds: the lanes buffer, private copies of two builtins (so a callee can read
/// them), and where the entry point gets them.
pub(super) struct LaneGlobals {
    pub buffer: Handle<GlobalVariable>,
    pub workgroup: Handle<GlobalVariable>,
    pub local_index: Handle<GlobalVariable>,
    /// The entry argument (and struct member) holding `workgroup_id`.
    pub workgroup_arg: EntryArg,
    /// The entry argument (and struct member) holding `local_invocation_index`.
    pub local_index_arg: EntryArg,
}

/// A `var<private>` of divlab's own: one value per invocation.
fn private_global(module: &mut Module, name: &str, ty: Handle<Type>) -> Handle<GlobalVariable> {
    module.global_variables.append(
        GlobalVariable {
            name: Some(name.to_owned()),
            space: AddressSpace::Private,
            binding: None,
            ty,
            init: None,
            memory_decorations: Default::default(),
        },
        Span::UNDEFINED,
    )
}

/// A storage buffer of divlab's own at `@group(group) @binding(binding)`, which the kernel must
/// leave free; `what` names its use in the error.
fn buffer_global(
    module: &mut Module,
    name: &str,
    group: u32,
    binding: u32,
    what: &str,
    ty: Handle<Type>,
) -> Result<Handle<GlobalVariable>> {
    let slot = ResourceBinding { group, binding };
    if let Some((_, var)) = module
        .global_variables
        .iter()
        .find(|(_, var)| var.binding == Some(slot))
    {
        return Err(ProfileError::TakenBinding {
            name: var.name.clone().unwrap_or_else(|| "?".to_owned()),
            group,
            binding,
            what: what.to_owned(),
        }
        .into());
    }
    Ok(module.global_variables.append(
        GlobalVariable {
            name: Some(name.to_owned()),
            space: AddressSpace::Storage {
                access: StorageAccess::LOAD | StorageAccess::STORE,
            },
            binding: Some(slot),
            ty,
            init: None,
            memory_decorations: Default::default(),
        },
        Span::UNDEFINED,
    ))
}

/// The entry point's argument (and struct member) with builtin `builtin`, added as a new
/// argument when the kernel does not take it.
fn entry_builtin(
    module: &mut Module,
    builtin: naga::BuiltIn,
    ty: Handle<Type>,
    name: &str,
) -> EntryArg {
    let wanted = Some(naga::Binding::BuiltIn(builtin));
    let function = &module.entry_points[0].function;
    for (i, arg) in function.arguments.iter().enumerate() {
        if arg.binding == wanted {
            return (i as u32, None);
        }
        if let TypeInner::Struct { members, .. } = &module.types[arg.ty].inner
            && let Some(m) = members.iter().position(|m| m.binding == wanted)
        {
            return (i as u32, Some(m as u32));
        }
    }
    let function = &mut module.entry_points[0].function;
    function.arguments.push(naga::FunctionArgument {
        name: Some(name.to_owned()),
        ty,
        binding: wanted,
    });
    (function.arguments.len() as u32 - 1, None)
}

/// The `--lanes` records' buffer and the entry builtins they read.
fn lane_globals(
    module: &mut Module,
    opts: &InstrumentOptions,
    array_ty: Handle<Type>,
    u32_ty: Handle<Type>,
) -> Result<LaneGlobals> {
    let vec3_ty = vector_type(module, naga::VectorSize::Tri);
    let buffer = buffer_global(
        module,
        "divlab_lanes",
        opts.counters_group,
        1,
        "its lane records",
        array_ty,
    )?;
    Ok(LaneGlobals {
        buffer,
        workgroup: private_global(module, "divlab_workgroup", vec3_ty),
        local_index: private_global(module, "divlab_local_index", u32_ty),
        workgroup_arg: entry_builtin(
            module,
            naga::BuiltIn::WorkGroupId,
            vec3_ty,
            "divlab_workgroup_id",
        ),
        local_index_arg: entry_builtin(
            module,
            naga::BuiltIn::LocalInvocationIndex,
            u32_ty,
            "divlab_local_invocation_index",
        ),
    })
}
