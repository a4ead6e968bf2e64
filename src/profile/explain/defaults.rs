//! The notes on a default fill (`cap.rs` tells a capped loop's bound): which integer fields of
//! a uniform buffer hold the dispatch's invocations, and what the kernel's code made a default
//! fill hold instead, each with how to choose otherwise.

use super::Fills;
use super::cap::{global_of, quoted};
use super::ir::count_fields;
use crate::profile::fill::{self, Resolved};
use crate::profile::kernel::{Access, Binding, Kernel};

/// Notes for the report: each uniform buffer the default fill left with the dispatch's
/// invocations in its integer fields, naming them; and what the kernel's code made the default
/// fill hold instead ([`fill::Inferred`]), with how to choose otherwise.
pub fn default_notes(kernel: &Kernel, fills: Fills<'_>) -> Vec<String> {
    let mut notes = Vec::new();
    for r in fills.resolved.iter().filter(|r| !r.given) {
        let binding = &kernel.interface.bindings[r.index];
        notes.extend(invocation_note(kernel, binding, r, fills.invocations));
        let set = |i: &&fill::Inferred| r.sets.iter().any(|s| s.offset == i.offset());
        notes.extend(
            (r.inferred.iter())
                .filter(|i| i.cuts_all() || !set(i))
                .map(|i| inferred_note(binding, i)),
        );
    }
    notes
}

/// What the kernel's code made a default fill hold, and how to choose otherwise.
fn inferred_note(binding: &Binding, inferred: &fill::Inferred) -> String {
    let name = &binding.name;
    match inferred {
        fill::Inferred::Flag {
            offset,
            value,
            path,
            line,
        } => {
            let why = if *value == 1 {
                ", as 0 would send every invocation out at once"
            } else {
                ""
            };
            let mut k = 0usize;
            let mut total = 0usize;
            let _ = binding.shape.for_each_scalar(0, 1, &mut |at, _| {
                if at < *offset {
                    k += 1;
                }
                total += 1;
                std::ops::ControlFlow::Continue(())
            });
            let other = 1 - value;
            let how = if total == 1 {
                format!("--buffer {name}=values:{other}")
            } else {
                format!(
                    "--buffer {name}=values:... with {other} as value {} of {total} in layout order",
                    k + 1
                )
            };
            format!(
                "`{name}{path}` (uniform, no --buffer) is only compared with 0 or 1 (line \
                 {line}): divlab took it for a flag and set it to {value}{why}, not to the \
                 dispatch's invocations; pass {how} for the other path"
            )
        }
        fill::Inferred::Size {
            path,
            line,
            texture,
            array: true,
            value,
            ..
        } => format!(
            "`{name}{path}` (uniform, no --buffer) bounds the index of `{texture}` (line \
             {line}): divlab set it to the array's length, {}, not to the dispatch's \
             invocations; pass --buffer {name}=values:... to choose",
            value.map_or_else(|| "unknown".to_owned(), |v| v.to_string())
        ),
        fill::Inferred::Size {
            path,
            line,
            texture,
            dim,
            value,
            ..
        } => {
            let what = ["width", "height", "depth"][(*dim as usize).min(2)];
            match value {
                Some(v) => format!(
                    "`{name}{path}` (uniform, no --buffer) bounds the coordinates of texture \
                     `{texture}` (line {line}): divlab set it to the texture's {what}, {v}, not \
                     to the dispatch's invocations; pass --buffer {name}=values:... to choose"
                ),
                None => format!(
                    "`{name}{path}` (uniform, no --buffer) bounds the coordinates of texture \
                     `{texture}` (line {line}), whose size was not known: it holds the \
                     dispatch's invocations"
                ),
            }
        }
        fill::Inferred::Bound {
            path, line, value, ..
        } => format!(
            "`{name}{path}` has no --buffer, and the loop at line {line} counts up to it: divlab \
             set it to the dispatch's invocations, {value}, not to a random integer that would \
             run the loop into the cap; pass --buffer {name}{path}=N to choose, or --buffer \
             {name}=random for the random fill"
        ),
        fill::Inferred::Counts {
            line,
            index,
            bits,
            steps,
        } => {
            let max = (1u64 << bits) - 1;
            let ascend = format!(
                "divlab made its integers ascend by 0 to {max} (each the sum of random steps of \
                 {bits} bits before it, as a prefix sum's offsets do)"
            );
            let (runs, held) = match steps {
                fill::Steps::Cut => (
                    "counts up to its elements".to_owned(),
                    format!(
                        "divlab cut its random integers to 0 to {max} (each integer's lowest \
                         {bits} random bits)"
                    ),
                ),
                fill::Steps::Ascending => (
                    "counts up to its elements".to_owned(),
                    format!("a loop runs over a range of two of them, so {ascend}"),
                ),
                fill::Steps::StartsOf { ends } => (
                    format!("runs from its elements to those of `{ends}`"),
                    format!("{ascend}, and `{ends}` holds the next of each, so each range holds"),
                ),
                fill::Steps::EndsOf { starts, .. } => (
                    format!("runs from the elements of `{starts}` to its own"),
                    format!(
                        "divlab made each of its integers the one after the same index of \
                         `{starts}` (which ascend by random steps of {bits} bits), so each \
                         range holds"
                    ),
                ),
            };
            let handful = match steps {
                fill::Steps::StartsOf { .. } | fill::Steps::EndsOf { .. } => {
                    format!(" 0 to {max} trips, a handful")
                }
                _ => ", a handful of trips".to_owned(),
            };
            format!(
                "`{name}` has no --buffer, and the loop at line {line} {runs} (at the index \
                 `{index}`, which varies): {held}{handful}, where full-range integers run the \
                 loop into the cap, or not at all; pass --buffer {name}=random for those, or \
                 values:... to choose"
            )
        }
        fill::Inferred::Bits { line } => format!(
            "`{name}` has no --buffer, and the kernel compares its elements with 1 (line \
             {line}): divlab took them for cells that are on or off, so its random fill holds \
             0s and 1s (each integer's lowest random bit), not full-range integers; pass \
             --buffer {name}=random for those, or values:... to choose"
        ),
    }
}

/// The note for a uniform buffer whose integer fields hold the dispatch's invocations, where
/// the default fill left any there.
fn invocation_note(
    kernel: &Kernel,
    binding: &Binding,
    r: &Resolved,
    invocations: u64,
) -> Option<String> {
    let module = &kernel.module;
    if binding.access != Access::Uniform || fill::count_scalars(&binding.shape).is_empty() {
        return None;
    }
    let (_, var) = global_of(module, binding)?;
    let flags: Vec<String> = (r.inferred.iter())
        .filter_map(|i| match i {
            fill::Inferred::Flag { path, .. }
            | fill::Inferred::Size {
                path,
                value: Some(_),
                ..
            } => Some(format!("{}{path}", binding.name)),
            fill::Inferred::Size { value: None, .. }
            | fill::Inferred::Bits { .. }
            | fill::Inferred::Counts { .. }
            | fill::Inferred::Bound { .. } => None,
        })
        .collect();
    let fields: Vec<String> = count_fields(module, var.ty, &binding.name)
        .into_iter()
        .filter(|f| !flags.contains(f) && !r.sets.iter().any(|s| s.path == *f))
        .collect();
    if fields.is_empty() {
        return None;
    }
    let rest = if fill::count_scalars(&binding.shape).len() as u64 == binding.shape.scalar_count(0)
    {
        ""
    } else {
        ", and its other scalars the random fill"
    };
    let what = match &fields[..] {
        [one] if *one == binding.name => format!("it holds {invocations}"),
        [one] => format!("its integer field `{one}` holds {invocations}"),
        _ => format!("its integer fields {} hold {invocations}", quoted(&fields)),
    };
    let given = match r.sets.len() {
        0 => "no --buffer".to_owned(),
        n => format!("no --buffer fill (--buffer sets {n} of its scalars)"),
    };
    Some(format!(
        "`{name}` (uniform) has {given}: {what}, the dispatch's invocations (also \
         the default length of a runtime-sized array, so a count or bound read from it \
         agrees with the buffers){rest}; pass --buffer {name}=... to choose",
        name = binding.name
    ))
}
