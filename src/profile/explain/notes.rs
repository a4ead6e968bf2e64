//! Notes on what the run found: an entry point that ran a different number of times than the
//! dispatch makes, invocations that never reached its end, and a kernel that WGSL's uniformity
//! rules reject, and the `return`s naga needed at the end of functions.

use crate::profile::instrument::{BlockKind, Counters, Instrumented};
use crate::profile::kernel::KernelInterface;
use crate::profile::report::and_list;
use crate::shaders::AddedReturn;
use crate::uniformity::{Analysis, Severity};

/// What can leave invocations short of the kernel's end, where their counts are added.
const WAITING: &str = "a `workgroupBarrier` that only some invocations reach, which WGSL \
     forbids, can leave them waiting";

/// The entry point's own body block: its counts are the invocations (subgroups) that entered.
fn entry_block(instrumented: &Instrumented, interface: &KernelInterface) -> Option<usize> {
    (instrumented.blocks.iter())
        .position(|b| b.kind == BlockKind::FunctionBody && b.function == interface.entry)
}

/// A note where the entry point's executions are not what the dispatch makes: one per subgroup
/// (`ceil(workgroup invocations / subgroup width)` a workgroup, or by the widest ballot where
/// the adapter never filled a subgroup: lavapipe fills one from a single row along x), or one
/// per invocation without subgroups. A driver that ran only part of the dispatch (or wrapped its count) would otherwise
/// show counts that look right and are not.
pub fn entry_check(
    instrumented: &Instrumented,
    counts: &Counters,
    interface: &KernelInterface,
    dispatch: [u32; 3],
) -> Option<String> {
    let ran = counts.blocks[entry_block(instrumented, interface)?].executions;
    let workgroups: u64 = dispatch.iter().map(|&n| u64::from(n)).product();
    let invocations = interface.workgroup_invocations();
    let (expected, unit) = match counts.subgroup_width {
        Some(width) => {
            let widest = counts.max_active_lanes.filter(|&w| w > 0 && w < width);
            let per = u64::from(widest.unwrap_or(width).max(1));
            let unit = match widest {
                Some(w) if u64::from(w) < invocations => {
                    format!("subgroups of {width} lanes holding at most {w}")
                }
                _ => format!("subgroups of {width} lanes"),
            };
            (workgroups * invocations.div_ceil(per), unit)
        }
        None => (workgroups * invocations, "invocations".to_owned()),
    };
    (ran != expected).then(|| {
        let entry = &interface.entry;
        let made = format!("{workgroups} workgroups of {invocations} invocations make {expected}");
        if !instrumented.options.subgroups && ran < expected {
            // Each invocation counts at its exit here: one that never got there counts nothing.
            return format!(
                "{ran} invocations of the entry point `{entry}` reached its end, where each \
                 counts its passes without subgroups, but {made} {unit}: the rest did not run \
                 or never ended ({WAITING}), so every count here is of those {ran}; check the \
                 device with fewer workgroups, and `divlab uniformity` on the kernel"
            );
        }
        let part = if ran < expected {
            "only part of the dispatch, so every count here is of that part"
        } else {
            "more than the dispatch, so the counts are not of it alone"
        };
        format!(
            "the entry point `{entry}` ran {ran} times, but {made} {unit}: the driver ran \
             {part}; check the device with fewer workgroups",
        )
    })
}

/// A note where fewer lanes reached the kernel's end than entered it, counted with subgroups:
/// the counts of sites in loops (and in functions called from one) are kept per invocation and
/// added at its end, so an invocation that never got there (left waiting at a
/// `workgroupBarrier` that only some invocations reach, which WGSL forbids and llvmpipe does)
/// is missing from them, while the counts made as the kernel ran include it.
pub fn exit_check(
    instrumented: &Instrumented,
    counts: &Counters,
    interface: &KernelInterface,
) -> Option<String> {
    if !instrumented.exits_counted {
        return None;
    }
    let entered = counts.blocks[entry_block(instrumented, interface)?].active_lanes;
    // The exits are counted modulo 2^32.
    let exited = u64::from(counts.exits);
    (entered as u32 != counts.exits && exited < entered).then(|| {
        // The entry point's own loops: the lines in them (and what they call) are the ones short.
        let loops: Vec<String> = (instrumented.loops.iter())
            .filter(|l| l.function == interface.entry)
            .map(|l| l.line.to_string())
            .collect();
        let these = match loops.len() {
            0 => String::new(),
            1 => format!(" (here the loop on line {} and what it calls)", loops[0]),
            _ => format!(
                " (here the loops on lines {} and what they call)",
                and_list(&loops)
            ),
        };
        format!(
            "{} of the {entered} invocations that entered `{}` never reached its end \
             ({WAITING}): the counts of lines in loops, and in functions called from one{these}, \
             are added where an invocation ends, so they leave those invocations out and may \
             read fewer executions than ran; `divlab uniformity` on the kernel names such a \
             barrier",
            entered - exited,
            interface.entry
        )
    })
}

/// A note where naga needed a `return` at the end of a function that ends in a loop only
/// `return` leaves ([`crate::shaders::close_endless_functions`]): valid WGSL wgpu rejects, so a
/// user's own wgpu program needs the line divlab added.
pub fn added_returns_note(added: &[AddedReturn]) -> Option<String> {
    let (first, more) = added.split_first()?;
    let (what, lines) = if more.is_empty() {
        (format!("`{}`", first.statement), "line")
    } else {
        ("a `return` of the zero value".to_owned(), "lines")
    };
    let places: Vec<String> = (added.iter())
        .map(|a| format!("`{}` (line {})", a.function, a.line))
        .collect();
    Some(format!(
        "naga, which wgpu compiles with, rejects a function that returns a value and ends in a \
         loop only `return` leaves, though WGSL allows it (nothing runs past such a loop) and \
         Chrome takes it: divlab ran the kernel with {what} added at the end of {}, reached only \
         where the loop cap cuts the loop short, and counted on no line; a wgpu program that \
         loads this kernel needs the same {lines}",
        and_list(&places)
    ))
}

/// A note where WGSL's uniformity rules reject the kernel: a WebGPU implementation (Chrome,
/// Firefox, Safari) would refuse to compile it, and the device ran what naga let through.
pub fn uniformity_note(analysis: &Analysis) -> Option<String> {
    let errors: Vec<_> = (analysis.diagnostics.iter())
        .filter(|d| d.severity == Severity::Error)
        .collect();
    let first = errors.first()?;
    Some(format!(
        "WGSL's uniformity rules reject this kernel ({} error{}, the first at line {}: {}): a \
         browser's WebGPU would not compile it, and naga let it through, so this profile is of \
         a kernel that is not portable; `divlab uniformity {}` explains each",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" },
        first.line,
        first.message,
        analysis.file,
    ))
}
