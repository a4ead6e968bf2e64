//! Resolution: each binding of the kernel's interface with the `--buffer` and `--len` that
//! name it.

use super::{BindingRef, BufferSpec, Fill, Resolved};
use crate::profile::error::{Error, Flag, Result, Slot};
use crate::profile::kernel::{Access, BufferSize, KernelInterface};

#[cfg(test)]
#[path = "inputs_tests.rs"]
mod tests;

/// Invocations of a dispatch: the default length of a runtime-sized array, one element per
/// invocation.
pub fn invocations(workgroup_size: [u32; 3], dispatch: [u32; 3]) -> u64 {
    workgroup_size
        .iter()
        .chain(&dispatch)
        .map(|&n| u64::from(n))
        .product()
}

/// One scalar that `--buffer BINDING.PLACE=NUMBER` sets.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarSet {
    /// The scalar's WGSL path from the variable's name (`lights.dims.x`).
    pub path: String,
    /// Its byte offset in the buffer.
    pub offset: u64,
    /// Its type.
    pub scalar: naga::Scalar,
    /// The number.
    pub value: f64,
}

impl std::fmt::Display for ScalarSet {
    /// The option as the command line takes it: `lights.dims.x=4`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.path, self.value)
    }
}

/// Each binding of `interface`, in its order, with the `--buffer` and `--len` that name it.
/// A `--buffer`/`--len` that names no binding, fills one twice, a place that names no one
/// scalar of it, or a `--len` on a fixed-size binding is an error.
pub fn resolve(
    interface: &KernelInterface,
    specs: &[BufferSpec],
    lens: &[(BindingRef, u64)],
) -> Result<Vec<Resolved>> {
    let mut out: Vec<Resolved> = (0..interface.bindings.len())
        .map(|index| Resolved {
            index,
            fill: Fill::default(),
            len: None,
            given: false,
            inferred: Vec::new(),
            sets: Vec::new(),
        })
        .collect();
    let mut filled = vec![false; out.len()];
    for spec in specs {
        let i = find(interface, &spec.target, Flag::Buffer)?;
        if let (Some(place), Fill::Values(values)) = (&spec.place, &spec.fill) {
            let b = &interface.bindings[i];
            let bad = |why| Error::BadFill {
                flag: Some(Flag::Buffer),
                binding: Some(b.slot()),
                why: format!("--buffer {spec}: in {}, {why}", b.label()),
            };
            let scalars = if let [_] = values[..] {
                let (offset, scalar) = b.shape.scalar_at(place).map_err(bad)?;
                vec![(place.clone(), offset, scalar)]
            } else {
                b.shape.scalars_at(place, values.len()).map_err(bad)?
            };
            let sets = scalars.into_iter().zip(values);
            out[i]
                .sets
                .extend(sets.map(|((at, offset, scalar), &value)| ScalarSet {
                    path: format!("{}{at}", b.name),
                    offset,
                    scalar,
                    value,
                }));
            continue;
        }
        if std::mem::replace(&mut filled[i], true) {
            let b = &interface.bindings[i];
            return Err(Error::BadFill {
                flag: Some(Flag::Buffer),
                binding: Some(b.slot()),
                why: format!("--buffer gives {} twice; give each binding once", b.label()),
            });
        }
        out[i].fill = spec.fill.clone();
        out[i].given = true;
    }
    for (target, len) in lens {
        let i = find(interface, target, Flag::Len)?;
        let b = &interface.bindings[i];
        if let BufferSize::Fixed(bytes) = b.size {
            return Err(Error::BadFill {
                flag: Some(Flag::Len),
                binding: Some(b.slot()),
                why: format!(
                    "--len {target}={len}: {} has a fixed size of {bytes} bytes; --len applies \
                     only to runtime-sized arrays (`array<T>`)",
                    b.label()
                ),
            });
        }
        if out[i].len.replace(*len).is_some() {
            return Err(Error::BadFill {
                flag: Some(Flag::Len),
                binding: Some(b.slot()),
                why: format!("--len gives {} twice; give each binding once", b.label()),
            });
        }
    }
    Ok(out)
}

/// Checks every buffer of `resolved` against the adapter's `limits` before anything is made or
/// filled: a storage or uniform binding against its binding-size limit and `max_buffer_size`,
/// whichever is smaller, and a `file:` fill's file against the same limit. The error names the
/// limit, the size asked and what to pass instead.
pub fn check_limits(
    interface: &KernelInterface,
    resolved: &[Resolved],
    invocations: u64,
    limits: &wgpu::Limits,
) -> Result<()> {
    for r in resolved {
        let b = &interface.bindings[r.index];
        let binding_limit = match b.access {
            // Checked against `max_immediate_size` where the block is made.
            Access::Immediate => continue,
            Access::Uniform => (
                "max_uniform_buffer_binding_size",
                limits.max_uniform_buffer_binding_size,
            ),
            Access::StorageRead | Access::StorageReadWrite => (
                "max_storage_buffer_binding_size",
                limits.max_storage_buffer_binding_size,
            ),
        };
        let (limit, max) = if limits.max_buffer_size < binding_limit.1 {
            ("max_buffer_size", limits.max_buffer_size)
        } else {
            binding_limit
        };
        super::files::check_file_limit(b, &r.fill, limit, max)?;
        let len = r.len_or(invocations);
        let asked = b.size.bytes(len);
        if asked <= max {
            continue;
        }
        let (why, hint) = match b.size {
            BufferSize::RuntimeArray { base, stride, .. } => {
                let fits = max.saturating_sub(base) / stride.max(1);
                match r.len {
                    Some(n) => (
                        format!(" (--len {}={n})", b.name),
                        format!("pass --len {}=N with N at most {fits}", b.name),
                    ),
                    None => (
                        format!(" ({len} elements, one per invocation of the dispatch)"),
                        format!(
                            "pass --len {}=N with N at most {fits}, or dispatch fewer \
                             workgroups",
                            b.name
                        ),
                    ),
                }
            }
            BufferSize::Fixed(_) => (
                String::new(),
                "the kernel declares it at this size: declare a smaller type, or profile on an \
                 adapter with larger limits (`divlab adapters`)"
                    .to_owned(),
            ),
        };
        return Err(Error::BufferLimit {
            buffer: b.label(),
            asked,
            why,
            limit,
            max,
            hint,
        });
    }
    Ok(())
}

fn find(interface: &KernelInterface, target: &BindingRef, flag: Flag) -> Result<usize> {
    interface
        .bindings
        .iter()
        .position(|b| target.matches(b))
        .ok_or_else(|| {
            let names: Vec<String> = interface
                .bindings
                .iter()
                .map(|b| format!("{} at {}:{} ({})", b.name, b.group, b.binding, b.access))
                .collect();
            let (binding, why) = unknown_target(flag, target, "binding", &names, interface);
            Error::BadFill {
                flag: Some(flag),
                binding,
                why,
            }
        })
}

/// Why `target` names nothing `flag` takes: the resource of another kind it names, with the
/// option that takes that (and the resource, for its line), else the entry point's own
/// `kind`s (`names`), so that the user can pick one.
pub(crate) fn unknown_target(
    flag: Flag,
    target: &BindingRef,
    kind: &str,
    names: &[String],
    interface: &KernelInterface,
) -> (Option<Slot>, String) {
    let head = format!("{flag} {target}=...");
    if let Some((slot, what, options)) = other_kind(interface, target, flag) {
        let why = format!(
            "{head}: `{}` is {what}, which {flag} does not take; {options}",
            slot.name
        );
        return (Some(slot), why);
    }
    let list = if names.is_empty() {
        format!("it uses no {kind}")
    } else {
        format!("its {kind}s are {}", names.join(", "))
    };
    let entry = &interface.entry;
    (
        None,
        format!("{head}: entry point `{entry}` uses no {kind} `{target}`; {list}"),
    )
}

/// The resource `target` names where it is not of the kind `flag` takes: it, what it is, and
/// the options that take it.
fn other_kind(
    interface: &KernelInterface,
    target: &BindingRef,
    flag: Flag,
) -> Option<(Slot, String, String)> {
    let buffer = (interface.bindings.iter())
        .find(|b| target.matches(b))
        .map(|b| match b.access {
            Access::Immediate => {
                let options = format!("fill it with --buffer {target}=FILL");
                (
                    b.slot(),
                    "the immediates (var<immediate>)".to_owned(),
                    options,
                )
            }
            _ => {
                let options =
                    format!("fill it with --buffer {target}=FILL or size it with --len {target}=N");
                (b.slot(), format!("a buffer ({})", b.access), options)
            }
        });
    let texture = (interface.textures.iter())
        .find(|t| target.names(&t.name, t.group, t.binding))
        .map(|t| {
            let options = format!("fill it with --texture {target}=FILL (--size, --format and --save take textures too)");
            (t.slot(), format!("a texture ({} {})", t.dim, t.class), options)
        });
    let sampler = (interface.samplers.iter())
        .find(|s| target.names(&s.name, s.group, s.binding))
        .map(|s| {
            let options = format!("set it with --sampler {target}=MODE");
            (s.slot(), "a sampler".to_owned(), options)
        });
    match flag {
        Flag::Buffer | Flag::Len => texture.or(sampler),
        Flag::Texture | Flag::Size | Flag::Format | Flag::Save => buffer.or(sampler),
        Flag::Sampler => buffer.or(texture),
        Flag::Override => None,
    }
}
