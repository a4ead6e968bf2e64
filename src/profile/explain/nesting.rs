//! llvmpipe's limit on nested conditions. gallivm keeps one mask per nested condition on a
//! stack of 80 (`LP_MAX_TGSI_NESTING`); a condition pushed deeper than that narrows nothing, so
//! the lanes it should hold back run its body. lavapipe inlines every call, so the stack runs
//! through calls. Measured on lavapipe: 79 nested `if`s profile right and 80 do not (divlab's
//! counters add a level), while a `switch`'s later cases sit deeper than their own nesting
//! shows (the driver lowers them to a chain of `if`s) and a loop leaves a level or two of room.
//! So the depth here is an upper bound: an `if` counts one, the nth case of a `switch` n (a
//! switch of 80 cases or more counted a lane in its default that no lane reached), a loop none.

use naga::{Block, Function, Module, Statement};

use crate::profile::kernel::Kernel;
use crate::source_map::SourceMap;

/// The conditions llvmpipe applies one inside another.
const LLVMPIPE_CONDITIONS: u32 = 80;

/// The most deeply nested statement: how many conditions enclose it (through calls), and the
/// 1-based line it is on.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Deepest {
    depth: u32,
    line: u32,
}

/// A note, on llvmpipe, where a line of the entry point (or of a function it calls) is nested
/// as deep as llvmpipe's limit: the lines there may have run, and been counted, with lanes
/// that should not have run them.
pub fn llvmpipe_nesting_note(kernel: &Kernel) -> Option<String> {
    let deepest = deepest_of_entry(&kernel.module, &kernel.interface.entry, &kernel.prepared)?;
    (deepest.depth >= LLVMPIPE_CONDITIONS).then(|| {
        format!(
            "line {} sits inside up to {} conditions (`if`s, `else if`s, each inside the `if` \
             before it, and `switch` cases, through calls); \
             llvmpipe applies only {LLVMPIPE_CONDITIONS} nested conditions, and divlab's counters \
             add one, so lines inside {LLVMPIPE_CONDITIONS} or more may have run, and been \
             counted, with lanes whose conditions were false (the kernel alone, inside {} or \
             more): profile it on a GPU driver, or nest it less, to trust those lines",
            deepest.line,
            deepest.depth,
            LLVMPIPE_CONDITIONS + 1,
        )
    })
}

/// The deepest statement of entry point `entry`; `None` if it has none with a line.
fn deepest_of_entry(module: &Module, entry: &str, source: &str) -> Option<Deepest> {
    let lines = SourceMap::new(source);
    // A function calls only functions declared before it, so one pass in order fills them all.
    let mut functions: Vec<Option<Deepest>> = Vec::with_capacity(module.functions.len());
    for (_, function) in module.functions.iter() {
        let deepest = deepest_in_function(function, &functions, &lines);
        functions.push(deepest);
    }
    let entry = module.entry_points.iter().find(|ep| ep.name == entry)?;
    deepest_in_function(&entry.function, &functions, &lines)
}

fn deepest_in_function(
    function: &Function,
    callees: &[Option<Deepest>],
    lines: &SourceMap,
) -> Option<Deepest> {
    let mut deepest = None;
    walk(&function.body, 0, callees, lines, &mut deepest);
    deepest
}

/// Records in `deepest` each statement of `block`, which `depth` conditions enclose, and of the
/// blocks and functions it holds, where it is deeper than the deepest so far.
fn walk(
    block: &Block,
    depth: u32,
    callees: &[Option<Deepest>],
    lines: &SourceMap,
    deepest: &mut Option<Deepest>,
) {
    let record = |candidate: Deepest, deepest: &mut Option<Deepest>| {
        if deepest.is_none_or(|d| candidate.depth > d.depth) {
            *deepest = Some(candidate);
        }
    };
    for (statement, span) in block.span_iter() {
        if let Some(line) = lines.span_line(*span) {
            record(Deepest { depth, line }, deepest);
        }
        match statement {
            Statement::Block(inner) => walk(inner, depth, callees, lines, deepest),
            Statement::If { accept, reject, .. } => {
                walk(accept, depth + 1, callees, lines, deepest);
                walk(reject, depth + 1, callees, lines, deepest);
            }
            // llvmpipe tests the cases one inside another, in order.
            Statement::Switch { cases, .. } => {
                for (levels, case) in (1u32..).zip(cases) {
                    let at = depth.saturating_add(levels);
                    walk(&case.body, at, callees, lines, deepest);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                walk(body, depth, callees, lines, deepest);
                walk(continuing, depth, callees, lines, deepest);
            }
            Statement::Call { function, .. } => {
                if let Some(Some(inner)) = callees.get(function.index()) {
                    let at = depth.saturating_add(inner.depth);
                    record(
                        Deepest {
                            depth: at,
                            ..*inner
                        },
                        deepest,
                    );
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deepest(source: &str) -> Deepest {
        let module = naga::front::wgsl::parse_str(source).unwrap();
        deepest_of_entry(&module, "main", source).unwrap()
    }

    #[test]
    fn nested_ifs_count_one_level_each() {
        let source = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    out[i] = 0u;
    if i > 1u {
        if i > 2u {
            if i > 3u { out[i] = 1u; }
        } else {
            out[i] = 2u;
        }
    }
}
";
        assert_eq!(deepest(source), Deepest { depth: 3, line: 7 });
    }

    #[test]
    fn a_call_adds_the_callees_depth_at_its_line() {
        let source = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn store(i: u32) {
    if i > 2u {
        if i > 3u {
            out[i] = 1u;
        }
    }
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    if i > 1u {
        for (var t = 0u; t < i; t++) {
            store(i);
        }
    }
}
";
        assert_eq!(deepest(source), Deepest { depth: 3, line: 5 });
    }

    #[test]
    fn the_nth_case_of_a_switch_counts_n_levels() {
        let source = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    switch i % 3u {
        case 0u { out[i] = 0u; }
        case 1u { out[i] = 1u; }
        default {
            if i > 4u {
                out[i] = 2u;
            }
        }
    }
}
";
        assert_eq!(deepest(source), Deepest { depth: 4, line: 9 });
    }
}
