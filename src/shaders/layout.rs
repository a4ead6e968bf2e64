//! Declarations of the Rust types and constants that mirror WGSL, one list per kernel; the
//! layout test (`shaders::tests::every_mirror_matches_its_wgsl`) holds each against naga's
//! layout of the WGSL: member names, offsets and sizes, struct spans, `const` values.

/// A `#[repr(C)]` Rust struct that mirrors a WGSL struct. Build it with `mirror!`.
#[derive(Debug)]
pub struct Mirror {
    /// The struct's name in WGSL.
    pub wgsl_struct: &'static str,
    /// The Rust type, for messages.
    pub rust_type: &'static str,
    /// `size_of` the Rust type: must equal the WGSL struct's span (its array stride).
    pub size: usize,
    /// The Rust fields in declaration order.
    pub fields: &'static [MirroredField],
}

/// One Rust field and the WGSL members it stands for.
#[derive(Debug)]
pub struct MirroredField {
    /// The field's Rust name.
    pub rust_name: &'static str,
    /// The WGSL members it covers, in order: one, or one per element of a padding array
    /// (`pad: [u32; 3]` for `_pad0`, `_pad1`, `_pad2`).
    pub wgsl_members: &'static [&'static str],
    /// `offset_of` the field.
    pub offset: usize,
    /// `size_of` the field.
    pub size: usize,
}

/// A Rust constant that must equal a WGSL module-scope `const`.
#[derive(Debug)]
pub struct MirroredConst {
    /// The `const`'s name in WGSL.
    pub wgsl_name: &'static str,
    /// Its value in Rust.
    pub value: u64,
}

impl MirroredConst {
    /// WGSL's `const wgsl_name` equals `value`.
    pub const fn new(wgsl_name: &'static str, value: u64) -> Self {
        Self { wgsl_name, value }
    }
}

/// `size_of` the field `field` selects; lets `mirror!` size a field in a `const`.
#[doc(hidden)]
pub const fn field_size<T, F>(_field: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

/// A [`Mirror`] of a `#[repr(C)]` struct, field by field in declaration order:
///
/// `mirror!(FuzzRecord as Record { ballot, point, pad as [pad0, pad1, pad2] })`
///
/// `Type as Name` names the WGSL struct when the names differ; `field as name` a WGSL member,
/// `field as [a, b]` the members one padding array covers.
macro_rules! mirror {
    ($ty:ident $(as $wgsl:ident)? { $($field:ident $(as $members:tt)?),* $(,)? }) => {
        $crate::shaders::layout::Mirror {
            wgsl_struct: $crate::shaders::layout::mirror!(@name $ty $($wgsl)?),
            rust_type: stringify!($ty),
            size: size_of::<$ty>(),
            fields: &[$($crate::shaders::layout::MirroredField {
                rust_name: stringify!($field),
                wgsl_members: $crate::shaders::layout::mirror!(@members $field $($members)?),
                offset: core::mem::offset_of!($ty, $field),
                size: $crate::shaders::layout::field_size(|t: &$ty| &t.$field),
            }),*],
        }
    };
    (@name $ty:ident) => { stringify!($ty) };
    (@name $ty:ident $wgsl:ident) => { stringify!($wgsl) };
    (@members $field:ident) => { &[stringify!($field)] };
    (@members $field:ident [$($member:ident),* $(,)?]) => { &[$(stringify!($member)),*] };
    (@members $field:ident $member:ident) => { &[stringify!($member)] };
}
pub(crate) use mirror;

/// A [`MirroredConst`] for Rust constants named as in WGSL: `consts![WORKGROUP_SIZE, BLOCK]`.
macro_rules! consts {
    ($($name:ident),* $(,)?) => {
        &[$($crate::shaders::layout::MirroredConst::new(stringify!($name), $name as u64)),*]
    };
}
pub(crate) use consts;

#[cfg(test)]
pub(crate) mod check {
    //! What the layout test asserts, against naga's own layout of a parsed module.

    use std::collections::BTreeSet;

    use naga::{Module, TypeInner};

    use super::{Mirror, MirroredConst};

    /// Every mismatch between `module` (parsed from `what`) and the Rust mirrors, one message
    /// each; `unmirrored` names structs the host fills without a mirror (see the caller).
    pub fn mismatches(
        what: &str,
        module: &Module,
        mirrors: &[Mirror],
        constants: &[MirroredConst],
        unmirrored: &[&str],
    ) -> Vec<String> {
        let mut layouter = naga::proc::Layouter::default();
        if let Err(e) = layouter.update(module.to_ctx()) {
            return vec![format!("{what}: naga cannot lay it out: {e}")];
        }
        let mut out = Vec::new();
        for mirror in mirrors {
            struct_mismatches(what, module, &layouter, mirror, &mut out);
        }
        for constant in constants {
            const_mismatch(what, module, constant, &mut out);
        }
        let mirrored: BTreeSet<&str> = mirrors.iter().map(|m| m.wgsl_struct).collect();
        for name in host_shared_structs(module) {
            if !mirrored.contains(name.as_str()) && !unmirrored.contains(&name.as_str()) {
                out.push(format!(
                    "{what}: struct {name} is bound to a storage or uniform buffer but has no \
                     Rust mirror; declare one with `mirror!` in its shaders/ module"
                ));
            }
        }
        out
    }

    fn struct_mismatches(
        what: &str,
        module: &Module,
        layouter: &naga::proc::Layouter,
        mirror: &Mirror,
        out: &mut Vec<String>,
    ) {
        let Mirror {
            wgsl_struct,
            rust_type,
            ..
        } = mirror;
        let at = format!("{what}: struct {wgsl_struct} (Rust {rust_type})");
        let found = module.types.iter().find_map(|(_, ty)| match &ty.inner {
            TypeInner::Struct { members, span } if ty.name.as_deref() == Some(wgsl_struct) => {
                Some((members, *span))
            }
            _ => None,
        });
        let Some((members, span)) = found else {
            out.push(format!("{at}: no such struct in the WGSL"));
            return;
        };
        // One expected WGSL member per Rust field, or per element of a padding array.
        let expected: Vec<(String, &str, usize, usize)> = mirror
            .fields
            .iter()
            .flat_map(|f| {
                let n = f.wgsl_members.len();
                f.wgsl_members.iter().enumerate().map(move |(i, member)| {
                    let rust = if n == 1 {
                        f.rust_name.to_owned()
                    } else {
                        format!("{}[{i}]", f.rust_name)
                    };
                    (rust, *member, f.offset + i * f.size / n, f.size / n)
                })
            })
            .collect();
        if members.len() != expected.len() {
            let wgsl: Vec<&str> = members.iter().filter_map(|m| m.name.as_deref()).collect();
            let rust: Vec<&str> = expected.iter().map(|e| e.1).collect();
            out.push(format!(
                "{at}: {} WGSL members {wgsl:?}, but the Rust mirror stands for {} {rust:?}",
                members.len(),
                expected.len()
            ));
        }
        // The first difference only: everything after a missing member differs too.
        for (member, (rust, name, offset, size)) in members.iter().zip(&expected) {
            let wgsl_name = member.name.as_deref().unwrap_or("?");
            let wgsl_size = layouter[member.ty].size as usize;
            if wgsl_name != *name || member.offset as usize != *offset || wgsl_size != *size {
                out.push(format!(
                    "{at}: member `{wgsl_name}` is at offset {} ({wgsl_size} bytes), where Rust \
                     field `{rust}` expects `{name}` at offset {offset} ({size} bytes)",
                    member.offset
                ));
                break;
            }
        }
        if span as usize != mirror.size {
            out.push(format!(
                "{at}: the WGSL struct spans {span} bytes, size_of::<{rust_type}>() is {}",
                mirror.size
            ));
        }
    }

    fn const_mismatch(
        what: &str,
        module: &Module,
        constant: &MirroredConst,
        out: &mut Vec<String>,
    ) {
        let name = constant.wgsl_name;
        let Some((_, c)) = module
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
        else {
            out.push(format!("{what}: no `const {name}` in the WGSL"));
            return;
        };
        let wgsl = match module.global_expressions[c.init] {
            naga::Expression::Literal(naga::Literal::U32(v)) => Some(u64::from(v)),
            naga::Expression::Literal(naga::Literal::I32(v)) => u64::try_from(v).ok(),
            _ => None,
        };
        if wgsl != Some(constant.value) {
            out.push(format!(
                "{what}: const {name} is {wgsl:?} in the WGSL, {} in Rust",
                constant.value
            ));
        }
    }

    /// Named structs a storage or uniform binding holds, directly or as an array's element.
    fn host_shared_structs(module: &Module) -> BTreeSet<String> {
        module
            .global_variables
            .iter()
            .filter(|(_, g)| {
                matches!(
                    g.space,
                    naga::AddressSpace::Storage { .. } | naga::AddressSpace::Uniform
                )
            })
            .filter_map(|(_, g)| {
                let ty = match module.types[g.ty].inner {
                    TypeInner::Array { base, .. } => &module.types[base],
                    _ => &module.types[g.ty],
                };
                matches!(ty.inner, TypeInner::Struct { .. })
                    .then(|| ty.name.clone())
                    .flatten()
            })
            .collect()
    }
}
