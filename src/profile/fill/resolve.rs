//! Resolution: each binding of the kernel's interface with the `--buffer` and `--len` that
//! name it.

use super::{BindingRef, BufferSpec, Fill, Resolved};
use crate::profile::error::{Error, Flag, Result};
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

/// Each binding of `interface`, in its order, with the `--buffer` and `--len` that name it.
/// A `--buffer`/`--len` that names no binding, names one twice, or a `--len` on a fixed-size
/// binding is an error.
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
        })
        .collect();
    let mut filled = vec![false; out.len()];
    for spec in specs {
        let i = find(interface, &spec.target, Flag::Buffer)?;
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
        let len = r.len.unwrap_or(invocations);
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
            Error::BadFill {
                flag: Some(flag),
                binding: None,
                why: unknown_target(flag, target, "binding", &names, &interface.entry),
            }
        })
}

/// Why `target` names nothing: the entry point's own `kind`s (`names`), so that the user can
/// pick one.
pub(crate) fn unknown_target(
    flag: Flag,
    target: &BindingRef,
    kind: &str,
    names: &[String],
    entry: &str,
) -> String {
    let list = if names.is_empty() {
        format!("it uses no {kind}")
    } else {
        format!("its {kind}s are {}", names.join(", "))
    };
    format!("{flag} {target}=...: entry point `{entry}` uses no {kind} `{target}`; {list}")
}
