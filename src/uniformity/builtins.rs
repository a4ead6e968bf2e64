//! What the spec says about each value source and builtin function, in naga's terms: which
//! built-in values are uniform, which module-scope variables are read-only, and the WGSL names
//! of the subgroup, quad and atomic builtins naga lowers into statements.

use naga::{
    AddressSpace, AtomicFunction, BuiltIn, CollectiveOperation, GatherMode, ShaderStage,
    StorageAccess, SubgroupOperation,
};

use super::Scope;

/// Whether a built-in input value is uniform at `scope` (the spec's list: `workgroup_id`,
/// `num_workgroups`, `num_subgroups`, `subgroup_size` in a compute shader, and at subgroup
/// scope also `subgroup_id`; every other built-in value is non-uniform).
pub(crate) fn builtin_is_uniform(builtin: BuiltIn, stage: ShaderStage, scope: Scope) -> bool {
    match builtin {
        BuiltIn::WorkGroupId | BuiltIn::NumWorkGroups | BuiltIn::NumSubgroups => true,
        BuiltIn::SubgroupSize => stage == ShaderStage::Compute || scope == Scope::Subgroup,
        BuiltIn::SubgroupId => scope == Scope::Subgroup,
        _ => false,
    }
}

/// The WGSL name of a built-in value.
pub(crate) fn builtin_name(builtin: BuiltIn) -> String {
    let name = match builtin {
        BuiltIn::Position { .. } => "position",
        BuiltIn::VertexIndex => "vertex_index",
        BuiltIn::InstanceIndex => "instance_index",
        BuiltIn::FrontFacing => "front_facing",
        BuiltIn::FragDepth => "frag_depth",
        BuiltIn::SampleIndex => "sample_index",
        BuiltIn::SampleMask => "sample_mask",
        BuiltIn::PrimitiveIndex => "primitive_index",
        BuiltIn::GlobalInvocationId => "global_invocation_id",
        BuiltIn::LocalInvocationId => "local_invocation_id",
        BuiltIn::LocalInvocationIndex => "local_invocation_index",
        BuiltIn::WorkGroupId => "workgroup_id",
        BuiltIn::NumWorkGroups => "num_workgroups",
        BuiltIn::NumSubgroups => "num_subgroups",
        BuiltIn::SubgroupId => "subgroup_id",
        BuiltIn::SubgroupSize => "subgroup_size",
        BuiltIn::SubgroupInvocationId => "subgroup_invocation_id",
        other => return format!("{other:?}"),
    };
    name.to_owned()
}

/// How a load from a module-scope variable in `space` behaves: `true` when the variable is
/// read-only (uniform buffers, read-only storage, handles, immediates), so a load is as uniform
/// as the control flow; `false` when it is mutable (`private`, `workgroup`, `read_write`
/// storage), so a load may be non-uniform.
pub(crate) fn space_is_read_only(space: AddressSpace) -> bool {
    match space {
        AddressSpace::Uniform | AddressSpace::Handle | AddressSpace::Immediate => true,
        AddressSpace::Storage { access } => !access.contains(StorageAccess::STORE),
        _ => false,
    }
}

/// The WGSL spelling of an address space, for messages.
pub(crate) fn space_name(space: AddressSpace) -> &'static str {
    match space {
        AddressSpace::Function => "var<function>",
        AddressSpace::Private => "var<private>",
        AddressSpace::WorkGroup => "var<workgroup>",
        AddressSpace::Uniform => "var<uniform>",
        AddressSpace::Storage { access } if access.contains(StorageAccess::STORE) => {
            "var<storage, read_write>"
        }
        AddressSpace::Storage { .. } => "var<storage, read>",
        AddressSpace::Handle => "var",
        _ => "var",
    }
}

/// Subgroup builtins with the function tag `NoRestriction` at subgroup scope: their result is as
/// uniform as their arguments there (the default parameter return tag). Every other subgroup and
/// quad builtin returns a value that may be non-uniform at every scope.
pub(crate) fn uniform_at_subgroup_scope(name: &str) -> bool {
    matches!(
        name,
        "subgroupAdd"
            | "subgroupAll"
            | "subgroupAnd"
            | "subgroupAny"
            | "subgroupBallot"
            | "subgroupBroadcast"
            | "subgroupBroadcastFirst"
            | "subgroupMax"
            | "subgroupMin"
            | "subgroupMul"
            | "subgroupOr"
            | "subgroupXor"
    )
}

/// The WGSL name of a collective subgroup operation.
pub(crate) fn collective_name(op: SubgroupOperation, collective: CollectiveOperation) -> String {
    let base = match op {
        SubgroupOperation::All => "All",
        SubgroupOperation::Any => "Any",
        SubgroupOperation::Add => "Add",
        SubgroupOperation::Mul => "Mul",
        SubgroupOperation::Min => "Min",
        SubgroupOperation::Max => "Max",
        SubgroupOperation::And => "And",
        SubgroupOperation::Or => "Or",
        SubgroupOperation::Xor => "Xor",
    };
    match collective {
        CollectiveOperation::Reduce => format!("subgroup{base}"),
        CollectiveOperation::InclusiveScan => format!("subgroupInclusive{base}"),
        CollectiveOperation::ExclusiveScan => format!("subgroupExclusive{base}"),
    }
}

/// The WGSL name of a gather, and which argument (if any) the spec requires to be uniform.
pub(crate) fn gather_name(mode: &GatherMode) -> (&'static str, Option<&'static str>) {
    match mode {
        GatherMode::BroadcastFirst => ("subgroupBroadcastFirst", None),
        GatherMode::Broadcast(_) => ("subgroupBroadcast", None),
        GatherMode::Shuffle(_) => ("subgroupShuffle", None),
        GatherMode::ShuffleDown(_) => ("subgroupShuffleDown", Some("delta")),
        GatherMode::ShuffleUp(_) => ("subgroupShuffleUp", Some("delta")),
        GatherMode::ShuffleXor(_) => ("subgroupShuffleXor", Some("mask")),
        GatherMode::QuadBroadcast(_) => ("quadBroadcast", None),
        GatherMode::QuadSwap(naga::Direction::X) => ("quadSwapX", None),
        GatherMode::QuadSwap(naga::Direction::Y) => ("quadSwapY", None),
        GatherMode::QuadSwap(naga::Direction::Diagonal) => ("quadSwapDiagonal", None),
    }
}

/// The WGSL name of an atomic builtin.
pub(crate) fn atomic_name(fun: &AtomicFunction) -> &'static str {
    match fun {
        AtomicFunction::Add => "atomicAdd",
        AtomicFunction::Subtract => "atomicSub",
        AtomicFunction::And => "atomicAnd",
        AtomicFunction::ExclusiveOr => "atomicXor",
        AtomicFunction::InclusiveOr => "atomicOr",
        AtomicFunction::Min => "atomicMin",
        AtomicFunction::Max => "atomicMax",
        AtomicFunction::Exchange { compare: None } => "atomicExchange",
        AtomicFunction::Exchange { compare: Some(_) } => "atomicCompareExchangeWeak",
    }
}
